import type { User } from '../api/types.ts';

/**
 * Whether the signed-in user may change a record owned by `ownerId`. `null` is a user not known yet (the
 * console renders pages while `/api/me` is still in flight): nothing is manageable until it answers.
 */
export function canManage(user: User | null, ownerId: string): boolean {
  return user !== null && (user.role === 'admin' || user.id === ownerId);
}

export function isAdmin(user: User | null): boolean {
  return user?.role === 'admin';
}
