import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { isoNow, systemClock } from '../../core/clock.js';
import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { ApiToken } from '../../core/records/api-token.js';
import type { User, UserRole } from '../../core/records/user.js';
import { createAuthCache } from './auth-cache.js';

export const TOKEN_PREFIX = 'trp_';
const PREFIX_LENGTH = 8;
/** `last_used_at` is informational; writing it on every request would turn each read into a write. */
const TOUCH_INTERVAL_MS = 60_000;
/**
 * How long a successful authentication is reused without reading the token and user rows again: the longest
 * a revocation or user change made by another process (the CLI, another API process) goes unseen. Changes
 * through this process's service (`revokeToken`, `forgetUser`) apply at once.
 */
export const AUTH_CACHE_TTL_MS = 1_000;

export interface IssuedToken {
  /** The secret: shown once, never stored. */
  token: string;
  record: ApiToken;
}

export interface Authenticated {
  user: User;
  token: ApiToken;
}

export interface AuthService {
  issueToken(userId: string, name: string): Promise<IssuedToken>;
  /** Throws `unauthorized` for an unknown, revoked or malformed secret, without saying which. */
  authenticate(secret: string): Promise<Authenticated>;
  createUser(name: string, role: UserRole): Promise<User>;
  /** A user and a first token in one transaction, so no user is ever left without a way in. */
  createUserWithToken(name: string, role: UserRole, tokenName: string): Promise<IssuedToken & { user: User }>;
  /** Revokes one of the user's tokens; false when the user has no such live token. Effective at once here. */
  revokeToken(userId: string, tokenId: string): Promise<boolean>;
  /** Revokes every live token of the user with this name; returns how many. Effective at once here. */
  revokeTokensByName(userId: string, name: string): Promise<number>;
  /** The user record changed: the next request of the user reads it again. */
  forgetUser(userId: string): void;
}

export interface AuthServiceOptions {
  clock?: Clock;
  /** Default `AUTH_CACHE_TTL_MS`; 0 reads the database on every request. */
  cacheTtlMs?: number;
}

export function hashToken(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The public form of a token record: the hash is useless to clients and better kept server-side. */
export type PublicApiToken = Omit<ApiToken, 'token_hash'>;

export function toPublicToken(token: ApiToken): PublicApiToken {
  const { token_hash: _hash, ...rest } = token;
  return rest;
}

function unauthorized(): TroupeError {
  return new TroupeError('unauthorized', 'Missing, invalid or revoked API token');
}

export function createAuthService(storage: Storage, options: AuthServiceOptions = {}): AuthService {
  const clock = options.clock ?? systemClock;
  const cache = createAuthCache(options.cacheTtlMs ?? AUTH_CACHE_TTL_MS);

  return {
    async issueToken(userId, name) {
      const user = await storage.users.get(userId);
      if (user === undefined) throw new TroupeError('user_not_found', `User ${userId} not found`);
      const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
      const record = await storage.tokens.create({
        user_id: userId,
        name,
        prefix: token.slice(0, PREFIX_LENGTH),
        token_hash: hashToken(token),
      });
      return { token, record };
    },

    async authenticate(secret) {
      if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 200) throw unauthorized();
      // No timing-safe comparison is needed: the lookup is by SHA-256 of the secret, so how long the
      // index search takes depends on the hash, which an attacker cannot steer towards a real token's
      // hash without already knowing that token's secret.
      const tokenHash = hashToken(secret);
      const nowMs = clock.now().getTime();
      const cached = cache.get(tokenHash, nowMs);
      if (cached !== undefined) return { user: cached.user, token: cached.token };
      const token = await storage.tokens.findActiveByHash(tokenHash);
      if (token === undefined) throw unauthorized();
      const user = await storage.users.get(token.user_id);
      if (user === undefined) throw unauthorized();
      const lastUsed = token.last_used_at === null ? undefined : Date.parse(token.last_used_at);
      let result: Authenticated = { user, token };
      if (lastUsed === undefined || nowMs - lastUsed >= TOUCH_INTERVAL_MS) {
        const at = isoNow(clock);
        await storage.tokens.touch(token.id, at);
        result = { user, token: { ...token, last_used_at: at } };
      }
      cache.set(tokenHash, result, nowMs);
      return result;
    },

    async revokeToken(userId, tokenId) {
      const revoked = await storage.tokens.revoke(userId, tokenId);
      cache.forgetUser(userId);
      return revoked;
    },

    async revokeTokensByName(userId, name) {
      const revoked = await storage.tokens.revokeByName(userId, name);
      cache.forgetUser(userId);
      return revoked;
    },

    forgetUser: (userId) => cache.forgetUser(userId),

    async createUser(name, role) {
      const trimmed = name.trim();
      if (trimmed === '') throw new TroupeError('validation_failed', 'A user needs a name');
      if ((await storage.users.getByName(trimmed)) !== undefined) {
        throw new TroupeError('user_exists', `User "${trimmed}" already exists`);
      }
      return storage.users.create({ name: trimmed, role });
    },

    async createUserWithToken(name, role, tokenName) {
      return storage.transaction(async (tx) => {
        const scoped = createAuthService(tx, options);
        const user = await scoped.createUser(name, role);
        return { user, ...(await scoped.issueToken(user.id, tokenName)) };
      });
    },
  };
}
