import { CompiledQuery, Kysely, type DatabaseConnection, type Driver } from 'kysely';
import type { DatabaseSchema } from '../sql/database-schema.js';
import type { OpenTransaction, TransactionSource } from '../sql/sql-context.js';
import type { ResilientPostgresDialect } from './postgres-driver.js';

/** What the transaction's database is given for a driver: it runs inside a transaction and opens none. */
const OPENS_NO_TRANSACTION: Driver = {
  init: () => Promise.resolve(),
  acquireConnection: () => Promise.reject(new Error('A transaction-bound database opens no connection')),
  beginTransaction: () => Promise.reject(new Error('A transaction-bound database opens no transaction')),
  commitTransaction: () => Promise.reject(new Error('A transaction-bound database opens no transaction')),
  rollbackTransaction: () => Promise.reject(new Error('A transaction-bound database opens no transaction')),
  releaseConnection: () => Promise.resolve(),
  destroy: () => Promise.resolve(),
};

/**
 * PostgreSQL transactions whose statements may be in flight together (docs/scale-out.md, "What scales how").
 * Kysely's own transaction runs one statement at a time on its connection; here the transaction's database
 * hands its connection to every statement at once, and the pipelined connection writes each one as it is
 * started, in that order, without waiting for the answer of the one before. A caller that starts independent
 * writes together (`Promise.all`) waits one round trip for all of them; a caller that awaits each one runs as
 * before. The first failure aborts the transaction on the server, so the statements behind it fail too and
 * nothing of it commits. Once the transaction ended, its database refuses statements: a `tx` kept past its
 * commit cannot run one on the connection's next transaction.
 */
export function pipelinedPostgresTransactions(
  db: Kysely<DatabaseSchema>,
  dialect: ResilientPostgresDialect,
): TransactionSource {
  const { driver } = dialect;
  return {
    async begin(): Promise<OpenTransaction> {
      const connection = await driver.acquireConnection();
      try {
        // Nothing is sent: the BEGIN leaves with the transaction's first statement (postgres-driver.ts).
        await driver.beginTransaction(connection, {});
      } catch (error) {
        await driver.releaseConnection(connection);
        throw error;
      }
      let open = true;
      const executor = db.getExecutor().withConnectionProvider({
        provideConnection: <T>(consume: (connection: DatabaseConnection) => Promise<T>) =>
          open ? consume(connection) : Promise.reject(new Error('This transaction has ended')),
      });
      const bound = new Kysely<DatabaseSchema>({
        config: { dialect },
        dialect,
        driver: OPENS_NO_TRANSACTION,
        executor,
      });
      const run = async (statement: string): Promise<void> => {
        await bound.executeQuery(CompiledQuery.raw(statement));
      };
      const end = async (finish: (connection: DatabaseConnection) => Promise<void>): Promise<void> => {
        if (!open) throw new Error('This transaction has ended');
        open = false;
        try {
          await finish(connection);
        } finally {
          await driver.releaseConnection(connection);
        }
      };
      return {
        db: bound,
        get open() {
          return open;
        },
        savepoint: () => run('savepoint group_member'),
        releaseSavepoint: () => run('release savepoint group_member'),
        rollbackToSavepoint: () => run('rollback to savepoint group_member'),
        commit: () => end((held) => driver.commitTransaction(held)),
        rollback: () => end((held) => driver.rollbackTransaction(held)),
      };
    },
  };
}
