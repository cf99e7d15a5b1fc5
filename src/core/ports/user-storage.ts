import type { ApiToken } from '../records/api-token.js';
import type { DelegationPolicy, User, UserRole } from '../records/user.js';

/* The users and API tokens part of the storage port (`storage.ts`). */

export interface NewUser {
  name: string;
  role: UserRole;
}

export interface UserRepository {
  create(user: NewUser): Promise<User>;
  get(id: string): Promise<User | undefined>;
  getByName(name: string): Promise<User | undefined>;
  list(): Promise<User[]>;
  setDelegationPolicy(id: string, policy: DelegationPolicy, whitelist: string[]): Promise<User>;
}

export type NewApiToken = Omit<ApiToken, 'id' | 'created_at' | 'last_used_at' | 'revoked_at'>;

export interface TokenRepository {
  create(token: NewApiToken): Promise<ApiToken>;
  /** A live (not revoked) token by the hash of its secret. */
  findActiveByHash(tokenHash: string): Promise<ApiToken | undefined>;
  listForUser(userId: string): Promise<ApiToken[]>;
  /** Revokes one of the user's tokens; false when the user has no such live token. */
  revoke(userId: string, tokenId: string): Promise<boolean>;
  /** Revokes every live token of the user with this name; returns how many. */
  revokeByName(userId: string, name: string): Promise<number>;
  touch(tokenId: string, at: string): Promise<void>;
}
