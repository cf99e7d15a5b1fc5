import { describe, expect, it } from 'vitest';
import type { ApiToken } from '../../core/records/api-token.js';
import type { User } from '../../core/records/user.js';
import { createAuthCache } from './auth-cache.js';

function entry(userId: string): { user: User; token: ApiToken } {
  return {
    user: { id: userId } as User,
    token: { id: `tok_${userId}`, user_id: userId } as ApiToken,
  };
}

describe('auth cache', () => {
  it('answers within the TTL only, and not for a clock that went back', () => {
    const cache = createAuthCache(1_000);
    cache.set('h', entry('u1'), 5_000);
    expect(cache.get('h', 5_999)?.user.id).toBe('u1');
    expect(cache.get('h', 6_000)).toBeUndefined();
    cache.set('h', entry('u1'), 5_000);
    expect(cache.get('h', 3_000)).toBeUndefined();
  });

  it('forgets every entry of one user and nobody else', () => {
    const cache = createAuthCache(1_000);
    cache.set('a1', entry('a'), 0);
    cache.set('a2', entry('a'), 0);
    cache.set('b1', entry('b'), 0);
    cache.forgetUser('a');
    expect(cache.get('a1', 1)).toBeUndefined();
    expect(cache.get('a2', 1)).toBeUndefined();
    expect(cache.get('b1', 1)?.user.id).toBe('b');
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const cache = createAuthCache(1_000, 2);
    cache.set('1', entry('u1'), 0);
    cache.set('2', entry('u2'), 0);
    cache.set('3', entry('u3'), 0);
    expect(cache.get('1', 1)).toBeUndefined();
    expect(cache.get('3', 1)?.user.id).toBe('u3');
  });

  it('stores nothing with a TTL of 0', () => {
    const cache = createAuthCache(0);
    cache.set('h', entry('u'), 0);
    expect(cache.get('h', 0)).toBeUndefined();
  });
});
