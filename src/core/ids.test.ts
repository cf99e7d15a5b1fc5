import { describe, expect, it } from 'vitest';
import { childRunRequestId, hashId, newId, subagentChildThreadId } from './ids.js';

describe('hashId', () => {
  it('matches the Yuxi test vectors for child threads and request ids', () => {
    const child = subagentChildThreadId('parent-thread', 'worker', 'tool-1');
    expect(child).toBe('subagent_5127cbbadbc9661c38a20a12a726f149c12e527dc1ae832ccba589c');
    expect(child).toHaveLength(64);
    const requestId = childRunRequestId('parent-run', child, 'tool-1');
    expect(requestId).toBe('req:ba37f2c6095007b7b9643597d6c6c58909e0d02aee78');
    expect(requestId).toHaveLength(48);
  });

  it('keeps the delegation request id of stored runs: the same formula with `delegate` as the scope', () => {
    expect(childRunRequestId('parent-run', 'delegate', 'call-1')).toBe(
      'req:96a7cb8ac1cdc2a3114ea9b6c02dcda7b56bee522c7f',
    );
  });

  it('returns the bare prefix when no room is left for the digest', () => {
    expect(hashId('abcdef', 'x', 6)).toBe('abcdef');
    expect(hashId('abcdef', 'x', 3)).toBe('abcdef');
  });

  it('caps the digest at the 64 hex chars of SHA-256', () => {
    expect(hashId('p', 'x', 200)).toHaveLength(65);
  });
});

describe('newId', () => {
  it('prefixes the kind and never repeats', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId('cnv')));
    expect(ids.size).toBe(1000);
    expect(newId('agt')).toMatch(/^agt_[0-9a-f]{20}$/);
  });
});
