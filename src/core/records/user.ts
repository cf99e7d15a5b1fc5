export const USER_ROLES = ['admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export interface User {
  id: string;
  name: string;
  role: UserRole;
  /** `none` | `all` | `whitelist`; the whitelist itself is `delegation_whitelist` (used by delegation). */
  delegation_policy: DelegationPolicy;
  delegation_whitelist: string[];
  created_at: string;
}

export const DELEGATION_POLICIES = ['none', 'all', 'whitelist'] as const;
export type DelegationPolicy = (typeof DELEGATION_POLICIES)[number];

/** The identity a request or a run acts as; everything is scoped by it. */
export interface Actor {
  id: string;
  role: UserRole;
}

export function isAdmin(actor: Actor): boolean {
  return actor.role === 'admin';
}
