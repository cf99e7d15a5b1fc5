import { describe, expect, it } from 'vitest';
import type { User } from '../api/types.ts';
import { canManage, isAdmin } from './user-rights.ts';

const member = { id: 'usr_m', name: 'm', role: 'member' } as User;
const admin = { id: 'usr_a', name: 'a', role: 'admin' } as User;

describe('user rights', () => {
  it('lets owners and admins manage, nobody while the user is unknown', () => {
    expect(canManage(member, 'usr_m')).toBe(true);
    expect(canManage(member, 'usr_other')).toBe(false);
    expect(canManage(admin, 'usr_other')).toBe(true);
    expect(canManage(null, 'usr_m')).toBe(false);
  });

  it('knows an admin only once the user is known', () => {
    expect(isAdmin(admin)).toBe(true);
    expect(isAdmin(member)).toBe(false);
    expect(isAdmin(null)).toBe(false);
  });
});
