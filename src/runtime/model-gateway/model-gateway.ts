import type { ModelCallSettings } from '../../model-call-settings.js';
import { delay } from '../../core/delay.js';
import { TroupeError } from '../../core/errors.js';
import type { ModelErrorClass } from '../../core/model-calls/model-error-class.js';
import { providerWaitMs } from '../../core/model-calls/provider-wait.js';
import {
  effectiveRetryPolicy,
  retryDecision,
  type RetryDecision,
  type RetryPolicy,
} from '../../core/model-calls/retry-schedule.js';
import type { ModelAdmission } from '../../core/ports/model-admission.js';
import type { ModelProvider, ResolvedModel } from '../../core/ports/model-provider.js';
import type {
  AgentMiddleware,
  ModelCallNotice,
  ModelCallRequest,
  ModelCallResult,
} from '../../core/ports/agent-middleware.js';
import type { RunEmitter } from '../events/run-emitter.js';
import { createContextWindowMiddleware, type ContextWindowDeps } from './context-window-middleware.js';
import { runModelAttempt } from './model-attempt.js';

export interface ModelGatewayDeps {
  admission: ModelAdmission;
  /** Resolves an agent's `model_fallbacks`. */
  models: ModelProvider;
  settings: Omit<ModelCallSettings, 'limits'>;
  /** The back-off's jitter; `Math.random` unless a test fixes it. */
  random?: () => number;
}

/** What the gateway needs of the run whose calls it makes. */
export interface ModelCallSession {
  /** Retries and fallbacks are announced here; streamed text goes to `delta`. */
  emitter: Pick<RunEmitter, 'emit' | 'delta'>;
  /** Runs `work` without holding the run's execution slot (`WorkerSlots.outside`). */
  outsideSlot<T>(work: () => Promise<T>): Promise<T>;
  /** Runs a wait (a turn at the provider, a back-off) with the run's inactivity clock stopped. */
  waiting<T>(work: () => Promise<T>): Promise<T>;
  /** Before an attempt that follows a wait: throws when the run may no longer call a model. */
  beforeAttempt(): Promise<void>;
}

export interface ModelGateway {
  /** The innermost `callModel` of one run's middleware chain: every model call of the run comes here. */
  forRun(session: ModelCallSession): (request: ModelCallRequest) => Promise<ModelCallResult>;
  /** The run's context-window layer (compaction, overflow retry, long answers), placed above the run gate. */
  contextWindow(setup: Pick<ContextWindowDeps, 'agent' | 'emitter'>): AgentMiddleware;
}

type ModelOutcome =
  | { ok: true; result: ModelCallResult }
  | { ok: false; failure: ModelErrorClass; error: TroupeError; streamedChars: number };

/** Reasons after which the provider's wait holds every call to it, not only this one. */
const PAUSES_PROVIDER: ReadonlySet<string> = new Set(['rate_limited', 'overloaded', 'server_error']);

function failureError(
  spec: string,
  failure: ModelErrorClass,
  decision: RetryDecision,
  retries: number,
  waitMs?: number,
): TroupeError {
  const code = failure.reason === 'context_overflow' ? 'context_overflow' : 'model_call_failed';
  const status = failure.status !== undefined ? ` (HTTP ${failure.status})` : '';
  const why =
    decision.retry || decision.why === 'final'
      ? ''
      : decision.why === 'exhausted'
        ? ` after ${retries} ${retries === 1 ? 'retry' : 'retries'}`
        : `; it asked to wait ${Math.ceil((waitMs ?? 0) / 1000)} s, longer than this server waits`;
  return new TroupeError(code, `Model ${spec} failed${status}${why}: ${failure.message}`, {
    details: { reason: failure.reason, ...(failure.status !== undefined ? { status: failure.status } : {}) },
  });
}

/**
 * The one way a run calls a model (docs/model-calls.md): below every middleware, so tracing, accounting and
 * the budget gate see one logical call however many requests it took. Each attempt waits its turn at the
 * provider (`ModelAdmission`); a retryable failure is retried after the provider's wait or a jittered
 * back-off, announced on the run's stream (`model_retry`), with the text the failed attempt streamed
 * dropped; when retries run out, the agent's `model_fallbacks` take over in order (`model_fallback`). A
 * final failure fails at once with the provider's message. A call that waits runs outside the run's
 * execution slot (`outsideSlot`), its waits outside its inactivity clock; a cancel or the run's wall time
 * ends a wait at once.
 */
export function createModelGateway(deps: ModelGatewayDeps): ModelGateway {
  const random = deps.random ?? Math.random;
  const server: RetryPolicy = {
    maxRetries: deps.settings.maxRetries,
    maxWaitMs: deps.settings.maxWaitMs,
    baseMs: deps.settings.retryBaseMs,
  };

  return {
    contextWindow: (setup) =>
      createContextWindowMiddleware({ ...setup, models: deps.models, settings: deps.settings }),
    forRun(session) {
      const announce = async (request: ModelCallRequest, notice: ModelCallNotice) => {
        const { type, ...payload } = notice;
        await session.emitter.emit(type, payload);
        request.observe?.(notice);
      };

      /** One model, with its retries. */
      async function withRetries(request: ModelCallRequest, policy: RetryPolicy): Promise<ModelOutcome> {
        const { spec } = request.model;
        for (let retries = 0; ; retries += 1) {
          if (retries > 0) await session.beforeAttempt();
          const attempt = await runModelAttempt(request, {
            admission: deps.admission,
            idleTimeoutMs: deps.settings.idleTimeoutMs,
            maxPauseMs: policy.maxWaitMs,
            // A call the run makes for itself (a summary) streams nothing: its text is not the answer.
            onTextDelta: request.silent === true ? () => undefined : (text) => session.emitter.delta(text),
            waiting: (work) => session.waiting(work),
            beforeAttempt: () => session.beforeAttempt(),
          });
          if (attempt.ok) return attempt;
          const { failure, streamedChars } = attempt;
          const asked = attempt.waitMs ?? providerWaitMs(failure.headers, Date.now());
          const decision = retryDecision(failure, retries, asked, policy, random);
          const pauseMs =
            asked ?? (decision.retry && failure.reason === 'rate_limited' ? decision.waitMs : undefined);
          if (failure.retryable && pauseMs !== undefined && PAUSES_PROVIDER.has(failure.reason)) {
            // Every call to this provider waits with this one, instead of each finding out with its own 429.
            await deps.admission
              .pause(request.model.limitKey.provider, Date.now() + pauseMs)
              .catch(() => undefined);
          }
          if (!decision.retry) {
            const error = failureError(spec, failure, decision, retries, asked);
            return { ok: false, failure, error, streamedChars };
          }
          await announce(request, {
            type: 'model_retry',
            step: request.step,
            attempt: retries + 1,
            max_retries: policy.maxRetries,
            reason: failure.reason,
            ...(failure.status !== undefined ? { status: failure.status } : {}),
            wait_ms: decision.waitMs,
            model: spec,
            discarded_chars: streamedChars,
          });
          await session.waiting(() => delay(decision.waitMs, request.abortSignal));
        }
      }

      async function call(request: ModelCallRequest): Promise<ModelCallResult> {
        const policy = effectiveRetryPolicy(server, request.agent.config.model_retry);
        const fallbacks = request.agent.config.model_fallbacks ?? [];
        let model: ResolvedModel = request.model;
        for (let index = 0; ; index += 1) {
          const outcome = await withRetries({ ...request, model }, policy);
          if (outcome.ok) return index === 0 ? outcome.result : { ...outcome.result, model: model.spec };
          const next = fallbacks[index];
          if (!outcome.failure.retryable || next === undefined) throw outcome.error;
          const fallback = deps.models.resolve(next);
          await announce(request, {
            type: 'model_fallback',
            step: request.step,
            from: model.spec,
            to: fallback.spec,
            reason: outcome.failure.reason,
            ...(outcome.failure.status !== undefined ? { status: outcome.failure.status } : {}),
            discarded_chars: outcome.streamedChars,
          });
          model = fallback;
        }
      }

      return (request) => session.outsideSlot(() => call(request));
    },
  };
}
