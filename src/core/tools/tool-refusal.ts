import { TroupeError, toTroupeError, type ErrorCode } from '../errors.js';
import type { ToolCallResult } from '../ports/agent-middleware.js';
import type { Refusal } from '../records/refusal.js';

/**
 * A tool's refusal: the model reads the message as the call's error result, and the run's `tool_result`
 * event carries `refusal` as data (docs/runs.md#events), so a client need not parse the text.
 */
export class ToolRefusal extends TroupeError {
  readonly refusal: Refusal;

  constructor(text: string, refusal: Refusal, code: ErrorCode = 'validation_failed') {
    super(code, text);
    this.refusal = refusal;
  }
}

/** What a tool's failure tells the model and clients: its message, and its refusal when it is one. */
export function toolFailureResult(error: unknown): ToolCallResult {
  if (error instanceof ToolRefusal) return { output: error.message, isError: true, refusal: error.refusal };
  return { output: toTroupeError(error).message, isError: true };
}
