import { TroupeError } from '../../../core/errors.js';

/**
 * A start the rules refuse: an answer for the caller (the model's tool result, `POST /api/delegate`'s
 * `{status: "failed", error}`), not a failure. Services return it; nothing is created.
 */
export interface Refused {
  kind: 'refused';
  error: string;
}

/** A request id found on a run that is not this parent's child of this kind (only a hash collision gets here). */
export const REQUEST_ID_CONFLICT = 'request_id conflict: this tool call id was already used for another run';

export function refused(error: string): Refused {
  return { kind: 'refused', error };
}

/** How a tool hands a refusal to the model: an error tool result with the text; the run itself goes on. */
export function refusalError(text: string): TroupeError {
  return new TroupeError('validation_failed', text);
}

export function isRefused(value: object): value is Refused {
  return (value as Partial<Refused>).kind === 'refused';
}
