import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../core/clock.js';
import { isTroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { TestStorage } from '../../../test/helpers/http/create-test-storage.js';
import { createTestStorage } from '../../../test/helpers/http/create-test-storage.js';
import { createAuthService, hashToken, toPublicToken } from './auth-service.js';

let testStorage: TestStorage;
let storage: Storage;
let now = new Date('2026-01-01T00:00:00.000Z');
const clock: Clock = { now: () => now };

beforeEach(async () => {
  testStorage = await createTestStorage();
  storage = testStorage.storage;
  now = new Date('2026-01-01T00:00:00.000Z');
});
afterEach(async () => {
  await testStorage.close();
});

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(isTroupeError(error) ? error.code : error).toBe(code);
}

describe('auth service', () => {
  it('issues trp_ tokens of 32 random bytes and stores only their hash and prefix', async () => {
    const auth = createAuthService(storage, { clock });
    const user = await auth.createUser('alice', 'member');
    const issued = await auth.issueToken(user.id, 'laptop');
    expect(issued.token).toMatch(/^trp_[A-Za-z0-9_-]{43}$/);
    expect(issued.record.token_hash).toBe(hashToken(issued.token));
    expect(issued.record.prefix).toBe(issued.token.slice(0, 8));
    const [stored] = await storage.tokens.listForUser(user.id);
    expect(JSON.stringify(stored)).not.toContain(issued.token.slice(8));
    expect(toPublicToken(issued.record)).not.toHaveProperty('token_hash');
  });

  it('authenticates a live token and refuses unknown, malformed and revoked ones alike', async () => {
    const auth = createAuthService(storage, { clock });
    const user = await auth.createUser('alice', 'member');
    const issued = await auth.issueToken(user.id, 'laptop');
    const result = await auth.authenticate(issued.token);
    expect(result.user.id).toBe(user.id);
    await expectCode(auth.authenticate('trp_not-a-real-token'), 'unauthorized');
    await expectCode(auth.authenticate('bogus'), 'unauthorized');
    expect(await auth.revokeToken(user.id, issued.record.id)).toBe(true);
    await expectCode(auth.authenticate(issued.token), 'unauthorized');
  });

  it('reuses a successful authentication for the TTL; a revocation elsewhere applies once it has passed', async () => {
    const auth = createAuthService(storage, { clock, cacheTtlMs: 1_000 });
    const user = await auth.createUser('alice', 'member');
    const issued = await auth.issueToken(user.id, 'laptop');
    await auth.authenticate(issued.token);
    // As another process (the CLI, another API process) would: straight in storage, unseen by this cache.
    await storage.tokens.revoke(user.id, issued.record.id);
    now = new Date('2026-01-01T00:00:00.999Z');
    expect((await auth.authenticate(issued.token)).user.id).toBe(user.id);
    now = new Date('2026-01-01T00:00:01.000Z');
    await expectCode(auth.authenticate(issued.token), 'unauthorized');
  });

  it('applies revocations by name and user changes made through the service at once', async () => {
    const auth = createAuthService(storage, { clock, cacheTtlMs: 60_000 });
    const user = await auth.createUser('alice', 'member');
    const kept = await auth.issueToken(user.id, 'laptop');
    const ci = await auth.issueToken(user.id, 'ci');
    await auth.authenticate(kept.token);
    await auth.authenticate(ci.token);
    expect(await auth.revokeTokensByName(user.id, 'ci')).toBe(1);
    await expectCode(auth.authenticate(ci.token), 'unauthorized');
    await auth.authenticate(kept.token);
    await storage.users.setDelegationPolicy(user.id, 'all', []);
    expect((await auth.authenticate(kept.token)).user.delegation_policy).not.toBe('all');
    auth.forgetUser(user.id);
    expect((await auth.authenticate(kept.token)).user.delegation_policy).toBe('all');
  });

  it('touches last_used_at at most once a minute', async () => {
    const auth = createAuthService(storage, { clock });
    const user = await auth.createUser('alice', 'member');
    const issued = await auth.issueToken(user.id, 'laptop');
    const first = await auth.authenticate(issued.token);
    expect(first.token.last_used_at).toBe('2026-01-01T00:00:00.000Z');
    now = new Date('2026-01-01T00:00:59.000Z');
    await auth.authenticate(issued.token);
    let [stored] = await storage.tokens.listForUser(user.id);
    expect(stored?.last_used_at).toBe('2026-01-01T00:00:00.000Z');
    now = new Date('2026-01-01T00:01:00.000Z');
    await auth.authenticate(issued.token);
    [stored] = await storage.tokens.listForUser(user.id);
    expect(stored?.last_used_at).toBe('2026-01-01T00:01:00.000Z');
  });

  it('refuses duplicate and blank user names and tokens for unknown users', async () => {
    const auth = createAuthService(storage, { clock });
    await auth.createUser('alice', 'member');
    await expectCode(auth.createUser('alice', 'admin'), 'user_exists');
    await expectCode(auth.createUser('   ', 'member'), 'validation_failed');
    await expectCode(auth.issueToken('usr_missing', 'x'), 'user_not_found');
  });

  it('creates a user with a first token in one transaction', async () => {
    const auth = createAuthService(storage, { clock });
    const created = await auth.createUserWithToken('bob', 'admin', 'initial');
    expect((await auth.authenticate(created.token)).user).toEqual(created.user);
    await expectCode(auth.createUserWithToken('bob', 'member', 'initial'), 'user_exists');
    expect(await storage.users.list()).toHaveLength(1);
  });
});
