import { emptyUsage, type TokenUsage } from '../../core/records/run.js';
import type { RunEventType } from '../../core/records/run-event.js';
import type { AgentMiddleware } from './agent-middleware.js';

export interface UsageMeter {
  readonly usage: TokenUsage;
}

/** The events a run emits when it is about to wait for a human. */
const HUMAN_WAITS: ReadonlySet<RunEventType> = new Set(['approval_required', 'question_required']);

export interface TokenUsageOptions {
  /**
   * Stores the usage so far, called before a tool announces that the run waits for a human: whoever reads
   * the run on that event (a chat completion ending there, an A2A client) sees this step's tokens, which
   * would otherwise reach the run only when it parks.
   */
  saveBeforeHumanWait?: (usage: TokenUsage) => Promise<void>;
}

/**
 * Token accounting as middleware (SPEC §3): every model call of the run adds to one meter. Once a fallback
 * answers a call, the meter also keeps what each model used (`by_model`, the run's own model included).
 */
export function createTokenUsageMiddleware(
  initial: TokenUsage | null,
  runModel: string,
  options: TokenUsageOptions = {},
): AgentMiddleware & UsageMeter {
  const usage: TokenUsage = { ...(initial ?? emptyUsage()) };
  if (initial?.by_model) usage.by_model = structuredClone(initial.by_model);
  const save = options.saveBeforeHumanWait;
  return {
    name: 'token-usage',
    usage,
    async wrapModelCall(request, next) {
      const result = await next(request);
      const answered = result.model ?? request.model.spec;
      if (usage.by_model === undefined && answered !== runModel) {
        usage.by_model = {
          [runModel]: {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            model_calls: usage.model_calls,
          },
        };
      }
      usage.input_tokens += result.usage.input_tokens;
      usage.output_tokens += result.usage.output_tokens;
      usage.total_tokens = usage.input_tokens + usage.output_tokens;
      usage.model_calls += 1;
      if (usage.by_model) {
        const entry = (usage.by_model[answered] ??= { input_tokens: 0, output_tokens: 0, model_calls: 0 });
        entry.input_tokens += result.usage.input_tokens;
        entry.output_tokens += result.usage.output_tokens;
        entry.model_calls += 1;
      }
      return result;
    },
    ...(save
      ? {
          wrapToolCall(request, next) {
            const inner = request.context;
            const context = {
              ...inner,
              async emit(type: RunEventType, payload: Record<string, unknown>) {
                if (HUMAN_WAITS.has(type)) await save({ ...usage });
                await inner.emit(type, payload);
              },
            };
            return next({ ...request, context });
          },
        }
      : {}),
  };
}
