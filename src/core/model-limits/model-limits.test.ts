import { describe, expect, it } from 'vitest';
import { limitsFor, parseModelLimits } from './model-limits.js';
import { chargeOf, fullBucket, msUntil, refilled } from './token-bucket.js';

describe('parseModelLimits', () => {
  it('reads providers with their own limits and per-model ones', () => {
    const limits = parseModelLimits({
      providers: {
        openai: {
          concurrency: 10,
          requests_per_minute: 500,
          models: { 'gpt-4o': { tokens_per_minute: 30_000 } },
        },
        'openai-compatible:ollama': { concurrency: 2 },
      },
    });
    expect(limitsFor(limits, 'openai', 'gpt-4o')).toEqual([
      { key: 'openai', limit: { concurrency: 10, requests_per_minute: 500 } },
      { key: 'openai\u0000gpt-4o', limit: { tokens_per_minute: 30_000 } },
    ]);
    expect(limitsFor(limits, 'openai', 'gpt-4o-mini')).toEqual([
      { key: 'openai', limit: { concurrency: 10, requests_per_minute: 500 } },
    ]);
    expect(limitsFor(limits, 'anthropic', 'claude')).toEqual([]);
    expect(limitsFor(limits, 'openai-compatible:ollama', 'llama3')).toHaveLength(1);
  });

  it.each([
    [[], /"providers" object/],
    [{ providers: [] }, /"providers" object/],
    [{ providers: {}, extra: 1 }, /unknown top-level field "extra"/],
    [
      { providers: { openai: { concurrency: 0 } } },
      /providers\.openai\.concurrency must be a positive integer/,
    ],
    [{ providers: { openai: { concurrency: 1.5 } } }, /positive integer/],
    [{ providers: { openai: { rpm: 10 } } }, /unknown field "rpm"/],
    [
      { providers: { openai: { models: { a: { models: {} } } } } },
      /providers\.openai\.models\.a: unknown field "models"/,
    ],
    [{ providers: { openai: 'fast' } }, /providers\.openai must be an object/],
  ])('refuses %j', (document, message) => {
    expect(() => parseModelLimits(document)).toThrow(message);
  });
});

describe('token bucket', () => {
  it('starts full, refills at its rate up to its size, and says when an amount fits', () => {
    const start = fullBucket(600, 0);
    const spent = { ...start, level: start.level - 600 };
    expect(msUntil(spent, 1, 600)).toBe(100);
    expect(refilled(spent, 600, 100).level).toBeCloseTo(1);
    expect(refilled(spent, 600, 10 * 60_000).level).toBe(600);
    expect(msUntil(refilled(spent, 600, 100), 1, 600)).toBe(0);
    expect(chargeOf(10_000, 600)).toBe(600);
    expect(chargeOf(-3, 600)).toBe(0);
  });
});
