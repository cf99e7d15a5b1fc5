import { TroupeError } from '../errors.js';
import type { Refusal } from '../records/refusal.js';

/**
 * A tool's refusal: the model reads the message as the call's error result, and the run's `tool_result`
 * event carries `refusal` as data (docs/runs.md#events), so a client need not parse the text.
 */
export class ToolRefusal extends TroupeError {
  readonly refusal: Refusal;

  constructor(text: string, refusal: Refusal) {
    super('validation_failed', text);
    this.refusal = refusal;
  }
}
