import { describe, expect, it } from 'vitest';
import type { Actor } from '../records/user.js';
import { canSeeRun, visibleRun } from './visible-run.js';

const alice = { id: 'usr_alice', role: 'member' } as Actor;
const admin = { id: 'usr_admin', role: 'admin' } as Actor;
const run = { id: 'run_1', user_id: 'usr_alice' };

describe('visible runs', () => {
  it('shows a run to its user and to admins, never to another member', () => {
    expect(canSeeRun(alice, run)).toBe(true);
    expect(canSeeRun(admin, run)).toBe(true);
    expect(canSeeRun({ id: 'usr_bob', role: 'member' }, run)).toBe(false);
    expect(canSeeRun(alice, undefined)).toBe(false);
  });

  it('answers a foreign run as a missing one: run_not_found either way', () => {
    expect(visibleRun(alice, 'run_1', run)).toBe(run);
    const bob = { id: 'usr_bob', role: 'member' } as Actor;
    expect(() => visibleRun(bob, 'run_1', run)).toThrow(expect.objectContaining({ code: 'run_not_found' }));
    expect(() => visibleRun(alice, 'run_2', undefined)).toThrow(
      expect.objectContaining({ code: 'run_not_found', message: 'Run run_2 not found' }),
    );
  });
});
