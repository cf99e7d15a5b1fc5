import type { ApiToken } from '../../core/records/api-token.js';
import type { User } from '../../core/records/user.js';

export interface CachedAuth {
  user: User;
  token: ApiToken;
}

export interface AuthCache {
  /** The entry for this token hash if it was stored less than the TTL ago, else undefined. */
  get(tokenHash: string, nowMs: number): CachedAuth | undefined;
  set(tokenHash: string, entry: CachedAuth, nowMs: number): void;
  /** Drops every entry of the user (a token revoked, the user record changed). */
  forgetUser(userId: string): void;
}

/**
 * Successful authentications by token hash, for a short TTL. Only successes are kept: a wrong guess always
 * reaches the database and the failure throttle. The TTL bounds how long a change made elsewhere (another
 * process, the CLI) takes to be seen; changes made through this process's auth service drop the entries at
 * once. `maxEntries` bounds memory whatever the number of tokens in use.
 */
export function createAuthCache(ttlMs: number, maxEntries = 10_000): AuthCache {
  const entries = new Map<string, CachedAuth & { expiresAt: number }>();
  return {
    get(tokenHash, nowMs) {
      const entry = entries.get(tokenHash);
      if (entry === undefined) return undefined;
      if (nowMs >= entry.expiresAt || nowMs < entry.expiresAt - ttlMs) {
        entries.delete(tokenHash);
        return undefined;
      }
      return entry;
    },
    set(tokenHash, entry, nowMs) {
      if (ttlMs <= 0) return;
      entries.delete(tokenHash);
      if (entries.size >= maxEntries) {
        // Map order is insertion order: the first key is the oldest entry.
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
      entries.set(tokenHash, { ...entry, expiresAt: nowMs + ttlMs });
    },
    forgetUser(userId) {
      for (const [hash, entry] of entries) if (entry.user.id === userId) entries.delete(hash);
    },
  };
}
