import { overridesWorkError } from './committed-despite-failure.js';
import type { OpenTransaction, TransactionSource } from './sql-context.js';

/**
 * `work` in a transaction of `source`: committed when it resolves, rolled back when it throws. The work's error
 * is the one reported, unless the rollback says that what it claims was not written was, or may have been
 * (`overridesWorkError`: a COMMIT that left behind the last statements).
 */
export async function inOpenTransaction<T>(
  source: TransactionSource,
  work: (transaction: OpenTransaction) => Promise<T>,
): Promise<T> {
  const transaction = await source.begin();
  let value: T;
  try {
    value = await work(transaction);
  } catch (error) {
    if (transaction.open) {
      try {
        await transaction.rollback();
      } catch (rollbackError) {
        if (overridesWorkError(rollbackError)) throw rollbackError;
        // Otherwise the work's error is the one to report; the rollback released the connection regardless.
      }
    }
    throw error;
  }
  await transaction.commit();
  return value;
}
