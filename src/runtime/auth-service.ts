import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { isoNow, systemClock } from '../core/clock.js';
import { TroupeError } from '../core/errors.js';
import type { Storage } from '../core/ports/storage.js';
import type { ApiToken } from '../core/records/api-token.js';
import type { User, UserRole } from '../core/records/user.js';

export const TOKEN_PREFIX = 'trp_';
const PREFIX_LENGTH = 8;
/** `last_used_at` is informational; writing it on every request would turn each read into a write. */
const TOUCH_INTERVAL_MS = 60_000;

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
}

export interface AuthServiceOptions {
  clock?: Clock;
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
      const token = await storage.tokens.findActiveByHash(hashToken(secret));
      if (token === undefined) throw unauthorized();
      const user = await storage.users.get(token.user_id);
      if (user === undefined) throw unauthorized();
      const now = clock.now();
      const lastUsed = token.last_used_at === null ? undefined : Date.parse(token.last_used_at);
      if (lastUsed === undefined || now.getTime() - lastUsed >= TOUCH_INTERVAL_MS) {
        const at = isoNow(clock);
        await storage.tokens.touch(token.id, at);
        return { user, token: { ...token, last_used_at: at } };
      }
      return { user, token };
    },

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
