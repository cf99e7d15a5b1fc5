import type { ModelLimits } from './core/model-limits/model-limits.js';

/** Retries, timeouts and shared provider limits of model calls (README "Real providers"). */
export interface ModelCallSettings {
  /** `TROUPE_MODEL_MAX_RETRIES`: attempts after the first; an agent's `config.model_retry` may only lower it. */
  maxRetries: number;
  /** `TROUPE_MODEL_MAX_WAIT_MS`: the longest single back-off; a provider asking for more ends the retries. */
  maxWaitMs: number;
  /** `TROUPE_MODEL_RETRY_BASE_MS`: the first back-off's ceiling, doubled at each retry. */
  retryBaseMs: number;
  /** `TROUPE_MODEL_IDLE_TIMEOUT_MS`: an attempt that receives nothing for this long is abandoned and retried. */
  idleTimeoutMs: number;
  /** `TROUPE_MODEL_LIMITS`: a JSON or YAML file of provider limits; empty without one. */
  limits: ModelLimits;
  /**
   * `TROUPE_CONTEXT_COMPACT_AT`: a prompt over this share of what the window leaves beside the answer's room
   * is compacted before the call (docs/model-calls.md#compaction); an agent's `config.compact_at` overrides.
   */
  compactAt: number;
  /**
   * `TROUPE_MODEL_MAX_CONTINUATIONS`: how many times a text answer cut by the output limit is continued
   * before the run fails with `output_truncated`; an agent's `config.max_continuations` overrides.
   */
  maxContinuations: number;
}

export const DEFAULT_MODEL_CALL_SETTINGS: ModelCallSettings = {
  maxRetries: 4,
  maxWaitMs: 60_000,
  retryBaseMs: 1000,
  idleTimeoutMs: 300_000,
  limits: {},
  compactAt: 0.8,
  maxContinuations: 2,
};
