import { emptyUsage, type TokenUsage } from '../../core/records/run.js';
import type { AgentMiddleware } from './agent-middleware.js';

export interface UsageMeter {
  readonly usage: TokenUsage;
}

/** Token accounting as middleware (SPEC §3): every model call of the run adds to one meter. */
export function createTokenUsageMiddleware(initial: TokenUsage | null): AgentMiddleware & UsageMeter {
  const usage = { ...(initial ?? emptyUsage()) };
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
  };
}
