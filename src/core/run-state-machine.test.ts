import { describe, expect, it } from 'vitest';
import { RUN_STATUSES, TERMINAL_RUN_STATUSES } from './records/run.js';
import { assertTransition, canTransition, sourcesOf } from './run-state-machine.js';

describe('run state machine', () => {
  it('never leaves a terminal status', () => {
    for (const from of TERMINAL_RUN_STATUSES) {
      for (const to of RUN_STATUSES) expect(canTransition(from, to)).toBe(false);
    }
  });

  it('refuses running → cancelled: a started run must pass through cancel_requested', () => {
    expect(canTransition('running', 'cancelled')).toBe(false);
    expect(canTransition('running', 'cancel_requested')).toBe(true);
    expect(canTransition('cancel_requested', 'cancelled')).toBe(true);
  });

  it('cancels a never-started run at once', () => {
    expect(canTransition('pending', 'cancelled')).toBe(true);
  });

  it('lets a run wait for input and come back', () => {
    expect(canTransition('running', 'input_required')).toBe(true);
    expect(canTransition('input_required', 'running')).toBe(true);
  });

  it('throws a coded error for a refused transition', () => {
    expect(() => assertTransition('completed', 'running')).toThrowError(
      expect.objectContaining({ code: 'invalid_transition' }),
    );
  });

  it('lists the sources of a status', () => {
    expect(sourcesOf('cancelled').sort()).toEqual(['cancel_requested', 'input_required', 'pending']);
  });
});
