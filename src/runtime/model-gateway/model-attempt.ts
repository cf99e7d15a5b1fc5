import { estimateTokens } from '../../core/budgets/estimate-tokens.js';
import { isTroupeError } from '../../core/errors.js';
import { classifyModelError, type ModelErrorClass } from '../../core/model-calls/model-error-class.js';
import {
  ProviderPausedError,
  type AdmissionGrant,
  type ModelAdmission,
} from '../../core/ports/model-admission.js';
import type { ModelCallRequest, ModelCallResult } from '../../core/ports/agent-middleware.js';
import { streamModelCall } from './stream-model-call.js';

export type AttemptOutcome =
  | { ok: true; result: ModelCallResult }
  | {
      ok: false;
      failure: ModelErrorClass;
      /** What the failed attempt streamed before it failed, in characters. */
      streamedChars: number;
      /** The wait the provider imposes on every call (a pause that outlasts `maxPauseMs`). */
      waitMs?: number;
    };

export interface AttemptDeps {
  admission: ModelAdmission;
  idleTimeoutMs: number;
  /** A provider paused for longer refuses the attempt instead of holding it (`AdmissionTicket.maxPauseMs`). */
  maxPauseMs: number;
  onTextDelta(text: string): void;
  /** Runs a wait (the admission queue) with the run's inactivity clock stopped. */
  waiting<T>(work: () => Promise<T>): Promise<T>;
  /** After a wait for admission: throws when the run may no longer call a model. */
  beforeAttempt(): Promise<void>;
}

/** Ends an attempt that received nothing for the idle timeout. */
class IdleTimeout extends Error {
  constructor(ms: number) {
    super(`the provider sent nothing for ${ms} ms`);
    this.name = 'IdleTimeout';
  }
}

/**
 * One request to the provider: a place from the admission first (the call waits its turn there), then the
 * streamed answer under an idle clock that every part resets. A failure comes back classified, with what
 * the attempt had streamed; the run's own abort (a cancel, its wall time) and failures of Troupe's own
 * (a scripted scenario's, a tool schema's) are thrown as they are.
 */
export async function runModelAttempt(request: ModelCallRequest, deps: AttemptDeps): Promise<AttemptOutcome> {
  const runSignal = request.abortSignal;
  const { provider, model } = request.model.limitKey;
  let grant: AdmissionGrant;
  try {
    grant = await deps.waiting(() =>
      deps.admission.admit(
        {
          provider,
          model,
          userId: request.run.user_id,
          tokens: () => estimateTokens([request.system, request.messages]),
          maxPauseMs: deps.maxPauseMs,
        },
        runSignal,
      ),
    );
  } catch (error) {
    if (!(error instanceof ProviderPausedError)) throw error;
    // The provider told every caller to wait longer than this call may: as if it had told this call.
    const failure: ModelErrorClass = { reason: 'rate_limited', retryable: true, message: error.message };
    return { ok: false, failure, streamedChars: 0, waitMs: error.pausedForMs };
  }
  let used: number | undefined;
  const controller = new AbortController();
  const forward = () => controller.abort(runSignal.reason);
  runSignal.addEventListener('abort', forward, { once: true });
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const touch = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new IdleTimeout(deps.idleTimeoutMs));
    }, deps.idleTimeoutMs);
  };
  let parts = 0;
  let toolCallEmitted = false;
  let streamedChars = 0;
  try {
    // A call that waited its turn checks again that its run may still call a model.
    if (grant.waitedMs > 0) await deps.beforeAttempt();
    touch();
    const result = await streamModelCall(
      { ...request, abortSignal: controller.signal },
      {
        onTextDelta(text) {
          streamedChars += text.length;
          deps.onTextDelta(text);
        },
        onPart(type) {
          parts += 1;
          if (type === 'tool-call') toolCallEmitted = true;
          touch();
        },
      },
    );
    used = result.usage.input_tokens + result.usage.output_tokens;
    return { ok: true, result };
  } catch (error) {
    runSignal.throwIfAborted();
    if (isTroupeError(error) && error.code !== 'model_call_failed') throw error;
    const cause = isTroupeError(error) ? error.cause : error;
    const failure = classifyModelError(cause, { toolCallEmitted, streamStarted: parts > 0, timedOut });
    return { ok: false, failure, streamedChars };
  } finally {
    if (timer) clearTimeout(timer);
    runSignal.removeEventListener('abort', forward);
    // A store that failed to take the release back loses nothing: the place's lease runs out.
    await grant.release(used).catch(() => undefined);
  }
}
