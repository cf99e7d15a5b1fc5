import { describe, expect, it } from 'vitest';
import { backoffMs, effectiveRetryPolicy, retryDecision, type RetryPolicy } from './retry-schedule.js';

const POLICY: RetryPolicy = { maxRetries: 4, maxWaitMs: 10_000, baseMs: 1000 };
const retryable = { retryable: true };

describe('backoffMs', () => {
  it('is full jitter under a ceiling that doubles each retry and stops at maxWaitMs', () => {
    const top = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffMs(retry, POLICY, top))).toEqual([
      999, 1999, 3999, 7999, 9999, 9999,
    ]);
    expect(backoffMs(3, POLICY, () => 0)).toBe(0);
    expect(backoffMs(2, POLICY, () => 0.5)).toBe(1000);
  });
});

describe('retryDecision', () => {
  it('retries a retryable failure with the back-off until maxRetries', () => {
    expect(retryDecision(retryable, 0, undefined, POLICY, () => 0.5)).toEqual({ retry: true, waitMs: 500 });
    expect(retryDecision(retryable, 3, undefined, POLICY, () => 0.5)).toEqual({ retry: true, waitMs: 4000 });
    expect(retryDecision(retryable, 4, undefined, POLICY, () => 0.5)).toEqual({
      retry: false,
      why: 'exhausted',
    });
  });

  it('waits what the provider asked for, unless that is longer than maxWaitMs', () => {
    expect(retryDecision(retryable, 0, 2500, POLICY, () => 0)).toEqual({ retry: true, waitMs: 2500 });
    expect(retryDecision(retryable, 0, 30_000, POLICY, () => 0)).toEqual({
      retry: false,
      why: 'wait_too_long',
    });
  });

  it('never retries a final failure', () => {
    expect(retryDecision({ retryable: false }, 0, 1000, POLICY, () => 0)).toEqual({
      retry: false,
      why: 'final',
    });
  });

  it('an agent may lower the bounds, never raise them', () => {
    expect(effectiveRetryPolicy(POLICY, { max_retries: 1, max_wait_ms: 500 })).toEqual({
      maxRetries: 1,
      maxWaitMs: 500,
      baseMs: 1000,
    });
    expect(effectiveRetryPolicy(POLICY, { max_retries: 50, max_wait_ms: 600_000 })).toEqual(POLICY);
    expect(effectiveRetryPolicy(POLICY, undefined)).toEqual(POLICY);
  });
});
