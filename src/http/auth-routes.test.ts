import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError } from '../../test/helpers/http/expect-error.js';

let ctx: TestContext;
let admin: TestUser;
let member: TestUser;

beforeEach(async () => {
  ctx = await createTestContext();
  admin = await ctx.createUser('root', 'admin');
  member = await ctx.createUser('alice');
});
afterEach(async () => ctx.close());

describe('bearer authentication', () => {
  it('answers 401 with WWW-Authenticate for a missing, malformed, unknown or revoked token', async () => {
    const missing = await ctx.request('GET', '/api/me');
    expect(missing.headers.get('WWW-Authenticate')).toMatch(/^Bearer/);
    await expectError(missing, 401, 'unauthorized');
    await expectError(
      await ctx.request('GET', '/api/me', { headers: { Authorization: 'Basic abc' } }),
      401,
      'unauthorized',
    );
    await expectError(await ctx.request('GET', '/api/me', { token: 'trp_unknown' }), 401, 'unauthorized');
    const issued = await ctx.request('POST', '/api/me/tokens', {
      token: member.token,
      body: { name: 'cli' },
    });
    const { token, record } = (await issued.json()) as { token: string; record: { id: string } };
    expect((await ctx.request('GET', '/api/me', { token })).status).toBe(200);
    expect((await ctx.request('DELETE', `/api/me/tokens/${record.id}`, { token: member.token })).status).toBe(
      204,
    );
    await expectError(await ctx.request('GET', '/api/me', { token }), 401, 'unauthorized');
  });

  it('authenticates before validating, so a stranger learns nothing about input rules', async () => {
    await expectError(await ctx.request('POST', '/api/agent', { body: '{broken' }), 401, 'unauthorized');
  });

  it('keeps only a hash of each secret on disk', async () => {
    const response = await ctx.request('POST', '/api/me/tokens', {
      token: member.token,
      body: { name: 'laptop' },
    });
    expect(response.status).toBe(201);
    const { token, record } = (await response.json()) as { token: string; record: Record<string, unknown> };
    expect(token).toMatch(/^trp_/);
    expect(record).not.toHaveProperty('token_hash');
    const rows = ctx.rawRows('api_tokens');
    expect(rows.length).toBe(3);
    for (const secret of [token, admin.token, member.token]) {
      expect(JSON.stringify(rows)).not.toContain(secret.slice(4));
    }
  });
});

describe('/api/me', () => {
  it('returns the caller and lists tokens without secrets or hashes', async () => {
    const me = await ctx.request('GET', '/api/me', { token: member.token });
    expect(((await me.json()) as { user: { name: string } }).user.name).toBe('alice');
    const list = await ctx.request('GET', '/api/me/tokens', { token: member.token });
    const { tokens } = (await list.json()) as { tokens: Record<string, unknown>[] };
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).not.toHaveProperty('token_hash');
    expect(JSON.stringify(tokens)).not.toContain(member.token);
  });

  it("cannot revoke someone else's token", async () => {
    const [adminToken] = await ctx.storage.tokens.listForUser(admin.user.id);
    await expectError(
      await ctx.request('DELETE', `/api/me/tokens/${adminToken?.id ?? ''}`, { token: member.token }),
      404,
      'token_not_found',
    );
    expect((await ctx.request('GET', '/api/me', { token: admin.token })).status).toBe(200);
  });
});

describe('/api/users (admin only)', () => {
  it('is forbidden to members', async () => {
    await expectError(await ctx.request('GET', '/api/users', { token: member.token }), 403, 'forbidden');
    const before = ctx.countRows();
    await expectError(
      await ctx.request('POST', '/api/users', {
        token: member.token,
        body: { name: 'mallory', role: 'admin' },
      }),
      403,
      'forbidden',
    );
    expect(ctx.countRows()).toEqual(before);
  });

  it('creates a user and returns a first token once', async () => {
    const response = await ctx.request('POST', '/api/users', { token: admin.token, body: { name: 'carol' } });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { user: { role: string }; token: string };
    expect(created.user.role).toBe('member');
    const me = await ctx.request('GET', '/api/me', { token: created.token });
    expect(((await me.json()) as { user: { name: string } }).user.name).toBe('carol');
    await expectError(
      await ctx.request('POST', '/api/users', { token: admin.token, body: { name: 'carol' } }),
      409,
      'user_exists',
    );
    const list = await ctx.request('GET', '/api/users', { token: admin.token });
    expect(((await list.json()) as { users: unknown[] }).users).toHaveLength(3);
  });
});
