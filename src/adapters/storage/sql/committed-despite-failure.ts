import { TroupeError } from '../../../core/errors.js';
import { isOutcomeUnknown } from '../../../core/runs/storage-outage.js';

/**
 * A transaction whose COMMIT left behind its last statements (`Storage.commitBehind`) committed, but its work
 * failed afterwards in code: what the work's error says was not written, was. A bug of that work (after
 * `commitBehind` only the database may refuse), reported instead of the work's own error.
 */
export class CommittedDespiteFailure extends TroupeError {
  constructor() {
    super(
      'internal',
      'A transaction committed behind its last statements although its work then failed (commitBehind)',
    );
  }
}

/**
 * A rollback's failure that replaces the work's error: what that error says was not written, was or may have
 * been (only a COMMIT written behind the last statements fails a rollback this way).
 */
export function overridesWorkError(rollbackError: unknown): boolean {
  return rollbackError instanceof CommittedDespiteFailure || isOutcomeUnknown(rollbackError);
}
