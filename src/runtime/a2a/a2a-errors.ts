import {
  A2AError,
  RequestMalformedError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { isTroupeError, type ErrorCode, type TroupeError } from '../../core/errors.js';

/** The Troupe failures an A2A client caused and can act on; every other code is internal to it. */
const CLIENT_ERRORS: Partial<Record<ErrorCode, (error: TroupeError) => A2AError>> = {
  run_not_found: (error) => new TaskNotFoundError(error.message),
  run_busy: (error) => {
    const active = error.details?.active_run_id;
    return new UnsupportedOperationError({
      message: `This context already has an active task${typeof active === 'string' ? ` (${active})` : ''}; wait for it or cancel it`,
      ...(typeof active === 'string' ? { metadata: { activeTaskId: active } } : {}),
    });
  },
  conversation_archived: (error) => new UnsupportedOperationError(error.message),
  validation_failed: (error) => new RequestMalformedError(error.message),
  conversation_not_found: (error) => new RequestMalformedError(error.message),
  request_id_conflict: (error) => new RequestMalformedError(error.message),
  agent_not_found: (error) => new RequestMalformedError(error.message),
  agent_not_chattable: (error) => new RequestMalformedError(error.message),
  // An answer to an input-required task that raced another decision, or whose answers do not fit.
  approval_decided: (error) => new UnsupportedOperationError(error.message),
  question_answered: (error) => new UnsupportedOperationError(error.message),
  run_not_waiting: (error) => new UnsupportedOperationError(error.message),
};

/**
 * A failure as the A2A error a client can act on (the JSON-RPC transport turns it into the spec's code).
 * Anything unexpected becomes a plain internal error with a fixed text: its message may name files or
 * queries, so it is handed to `onInternal` (the log) instead of the client.
 */
export function toA2AError(error: unknown, onInternal: (error: unknown) => void): Error {
  if (error instanceof A2AError) return error;
  const known = isTroupeError(error) ? CLIENT_ERRORS[error.code]?.(error) : undefined;
  if (known) return known;
  onInternal(error);
  return new Error('Internal error');
}
