import { emptyUsage, type TokenUsage } from '../../core/records/run.js';
import type { AgentMiddleware } from './agent-middleware.js';

export interface UsageMeter {
  readonly usage: TokenUsage;
}

/**
 * Token accounting as middleware (SPEC §3): every model call of the run adds to one meter. Once a fallback
 * answers a call, the meter also keeps what each model used (`by_model`, the run's own model included).
 */
export function createTokenUsageMiddleware(
  initial: TokenUsage | null,
  runModel: string,
): AgentMiddleware & UsageMeter {
  const usage: TokenUsage = { ...(initial ?? emptyUsage()) };
  if (initial?.by_model) usage.by_model = structuredClone(initial.by_model);
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
  };
}
