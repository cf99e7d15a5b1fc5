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

/** Token accounting as middleware (SPEC §3): every model call of the run adds to one meter. */
export function createTokenUsageMiddleware(
  initial: TokenUsage | null,
  options: TokenUsageOptions = {},
): AgentMiddleware & UsageMeter {
  const usage = { ...(initial ?? emptyUsage()) };
  const save = options.saveBeforeHumanWait;
  return {
    name: 'token-usage',
    usage,
    async wrapModelCall(request, next) {
      const result = await next(request);
      usage.input_tokens += result.usage.input_tokens;
      usage.output_tokens += result.usage.output_tokens;
      usage.total_tokens = usage.input_tokens + usage.output_tokens;
      usage.model_calls += 1;
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
