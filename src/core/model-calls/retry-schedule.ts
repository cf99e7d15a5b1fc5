import type { ModelErrorClass } from './model-error-class.js';

/** How a model call retries: the server's bounds, narrowed by an agent's `config.model_retry`. */
export interface RetryPolicy {
  /** Attempts after the first one. */
  maxRetries: number;
  /** The longest single wait; a provider asking for longer ends the retries of that model. */
  maxWaitMs: number;
  /** The first back-off's ceiling; each further one doubles it (full jitter below it). */
  baseMs: number;
}

/** `config.model_retry` of an agent: may only lower the server's bounds. */
export interface AgentRetrySettings {
  max_retries?: number;
  max_wait_ms?: number;
}

export const DEFAULT_RETRY_BASE_MS = 1000;

export function effectiveRetryPolicy(
  server: RetryPolicy,
  agent: AgentRetrySettings | undefined,
): RetryPolicy {
  return {
    maxRetries: Math.min(server.maxRetries, agent?.max_retries ?? server.maxRetries),
    maxWaitMs: Math.min(server.maxWaitMs, agent?.max_wait_ms ?? server.maxWaitMs),
    baseMs: server.baseMs,
  };
}

/**
 * Exponential back-off with full jitter: a uniform wait between 0 and min(maxWait, base × 2^(retry−1)), so
 * callers that failed together do not come back together. `retry` is 1 for the first retry.
 */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxWaitMs, policy.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

export type RetryDecision =
  | { retry: true; waitMs: number }
  /** `final`: not worth another attempt; `exhausted`: out of retries; `wait_too_long`: asked to wait past `maxWaitMs`. */
  | { retry: false; why: 'final' | 'exhausted' | 'wait_too_long' };

/**
 * What to do after a failed attempt: `retriesDone` retries were made already; `providerWaitMs` is what the
 * provider asked for (its headers), which wins over the back-off when given.
 */
export function retryDecision(
  failure: Pick<ModelErrorClass, 'retryable'>,
  retriesDone: number,
  providerWaitMs: number | undefined,
  policy: RetryPolicy,
  random: () => number,
): RetryDecision {
  if (!failure.retryable) return { retry: false, why: 'final' };
  if (retriesDone >= policy.maxRetries) return { retry: false, why: 'exhausted' };
  if (providerWaitMs !== undefined) {
    if (providerWaitMs > policy.maxWaitMs) return { retry: false, why: 'wait_too_long' };
    return { retry: true, waitMs: providerWaitMs };
  }
  return { retry: true, waitMs: backoffMs(retriesDone + 1, policy, random) };
}
