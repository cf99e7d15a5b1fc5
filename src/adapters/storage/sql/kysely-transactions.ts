import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from './database-schema.js';
import type { OpenTransaction, TransactionSource } from './sql-context.js';

/** Transactions through Kysely's own machinery, for an engine that runs none of its own. */
export function kyselyTransactions(db: Kysely<DatabaseSchema>): TransactionSource {
  return {
    async begin(): Promise<OpenTransaction> {
      const trx = await db.startTransaction().execute();
      const run = async (statement: ReturnType<typeof sql.raw>): Promise<void> => {
        await statement.execute(trx);
      };
      return {
        db: trx,
        get open() {
          return !trx.isCommitted && !trx.isRolledBack;
        },
        savepoint: () => run(sql.raw('savepoint group_member')),
        releaseSavepoint: () => run(sql.raw('release group_member')),
        rollbackToSavepoint: () => run(sql.raw('rollback to group_member')),
        commit: () => trx.commit().execute(),
        rollback: () => trx.rollback().execute(),
      };
    },
  };
}
