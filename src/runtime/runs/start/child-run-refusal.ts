import { TroupeError } from '../../../core/errors.js';
import type { Refusal } from '../../../core/records/refusal.js';
import { ToolRefusal } from '../../../core/tools/tool-refusal.js';

/**
 * A start the rules refuse: an answer for the caller (the model's tool result, `POST /api/delegate`'s
 * `{status: "failed", error}`), not a failure. Services return it; nothing is created.
 */
export interface Refused {
  kind: 'refused';
  error: string;
  /** The refusal as data, when it has a code of its own (a budget). */
  refusal?: Refusal;
}

/** A request id found on a run that is not this parent's child of this kind (only a hash collision gets here). */
export const REQUEST_ID_CONFLICT = 'request_id conflict: this tool call id was already used for another run';

export function refused(error: string, refusal?: Refusal): Refused {
  return refusal === undefined ? { kind: 'refused', error } : { kind: 'refused', error, refusal };
}

/** How a tool hands a refusal to the model: an error tool result with the text; the run itself goes on. */
export function refusalError(text: string, refusal?: Refusal): TroupeError {
  return refusal === undefined ? new TroupeError('validation_failed', text) : new ToolRefusal(text, refusal);
}

export function isRefused(value: object): value is Refused {
  return (value as Partial<Refused>).kind === 'refused';
}
