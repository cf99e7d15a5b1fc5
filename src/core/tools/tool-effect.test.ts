import { describe, expect, it } from 'vitest';
import { effectFromHints } from './tool-effect.js';

describe('effectFromHints (MCP annotations)', () => {
  it('reads readOnlyHint as read-only, idempotentHint as idempotent, anything else as external', () => {
    expect(effectFromHints({ readOnlyHint: true })).toBe('read_only');
    expect(effectFromHints({ readOnlyHint: true, destructiveHint: true })).toBe('read_only');
    expect(effectFromHints({ idempotentHint: true })).toBe('idempotent');
    // A destructive call that a repeat does not change further (a delete by id) is still safe to repeat.
    expect(effectFromHints({ destructiveHint: true, idempotentHint: true })).toBe('idempotent');
    expect(effectFromHints({ destructiveHint: true })).toBe('external');
    expect(effectFromHints({ destructiveHint: false })).toBe('external');
    expect(effectFromHints({ readOnlyHint: false, idempotentHint: false })).toBe('external');
    expect(effectFromHints({})).toBe('external');
    expect(effectFromHints(undefined)).toBe('external');
  });
});
