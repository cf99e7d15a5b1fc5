import { z } from 'zod';
import { timestamp } from './record-fields.js';

export const USER_ROLES = ['admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const DELEGATION_POLICIES = ['none', 'all', 'whitelist'] as const;
export type DelegationPolicy = (typeof DELEGATION_POLICIES)[number];

/** `delegation_policy` with its whitelist of expert slugs or ids: docs/delegation.md. */
export const userRecord = z.strictObject({
  id: z.string(),
  name: z.string(),
  role: z.enum(USER_ROLES),
  delegation_policy: z.enum(DELEGATION_POLICIES),
  delegation_whitelist: z.array(z.string()),
  created_at: timestamp,
});
export type User = z.infer<typeof userRecord>;

/** The identity a request or a run acts as; everything is scoped by it. */
export interface Actor {
  id: string;
  role: UserRole;
}

export function isAdmin(actor: Actor): boolean {
  return actor.role === 'admin';
}
