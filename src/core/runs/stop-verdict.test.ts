import { describe, expect, it } from 'vitest';
import { stopVerdict } from './stop-verdict.js';

describe('stopVerdict', () => {
  it('lets a running run go only while nothing above it is being cancelled', () => {
    expect(stopVerdict(['running'])).toBe('go');
    expect(stopVerdict(['running', 'running', 'completed'])).toBe('go');
    expect(stopVerdict(['running', 'running', 'cancel_requested'])).toBe('tree_cancelled');
    expect(stopVerdict(['running', 'cancelled'])).toBe('tree_cancelled');
    expect(stopVerdict(['cancel_requested', 'running'])).toBe('cancelled');
    expect(stopVerdict(['pending'])).toBe('not_held');
    expect(stopVerdict([])).toBe('not_held');
  });
});
