import { CompiledQuery, Kysely, type DatabaseConnection, type Driver } from 'kysely';
import { TroupeError } from '../../../core/errors.js';
import type { DatabaseSchema } from '../sql/database-schema.js';
import type { OpenTransaction, TransactionSource } from '../sql/sql-context.js';
import { isOutcomeUnknown } from '../../../core/runs/storage-outage.js';
import { CommittedDespiteFailure } from '../sql/committed-despite-failure.js';
import type { PostgresConnection } from './postgres-connection.js';
import type { ResilientPostgresDialect } from './postgres-driver.js';

/** Whether one of `statements` has failed; read at the turn's end, before any of them can have answered. */
function watchFailure(
  statements: readonly PromiseLike<unknown>[],
  failed = { now: false },
): { now: boolean } {
  for (const statement of statements) {
    statement.then(undefined, () => {
      failed.now = true;
    });
  }
  return failed;
}

function lateStatement(): TroupeError {
  return new TroupeError(
    'internal',
    'A statement was started after its transaction wrote its COMMIT behind its last statements (commitBehind)',
  );
}

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
 *
 * `commitBehind`: the work has started its last statements, and from there on only the database refuses
 * anything (a statement that fails). The COMMIT is written at the end of the event-loop turn, in the same
 * write as those statements, so the transaction costs one round trip less; PostgreSQL answers it with ROLLBACK
 * when one of them failed. A statement started after that is refused as `internal`; a work that fails in code
 * after its COMMIT committed is reported by `rollback` (`CommittedDespiteFailure`).
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
      // Set once the COMMIT was written behind the last statements (`commitBehind`).
      let committing: Promise<void> | undefined;
      const executor = db.getExecutor().withConnectionProvider({
        provideConnection: <T>(consume: (connection: DatabaseConnection) => Promise<T>) =>
          !open
            ? Promise.reject(new Error('This transaction has ended'))
            : committing
              ? Promise.reject(lateStatement())
              : consume(connection),
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
      // The failures watched for the COMMIT this turn will write, once one is asked for.
      let declared: { now: boolean } | undefined;
      const commitBehind = (statements: readonly PromiseLike<unknown>[]): void => {
        if (!open || committing) return;
        if (declared) {
          // Asked again in the same turn: the one COMMIT goes behind these too.
          watchFailure(statements, declared);
          return;
        }
        const failed = watchFailure(statements);
        declared = failed;
        (connection as PostgresConnection).atTurnEnd(() => {
          // Failed before anything answered (a check in code, not in the database): the work throws, and its
          // ROLLBACK is sent the usual way.
          if (failed.now || !open) return;
          committing = driver.commitTransaction(connection);
          // Awaited by commit() or rollback(); a failure here is theirs to report.
          committing.catch(() => undefined);
        });
      };
      return {
        db: bound,
        get open() {
          return open;
        },
        savepoint: () => run('savepoint group_member'),
        releaseSavepoint: () => run('release savepoint group_member'),
        rollbackToSavepoint: () => run('rollback to savepoint group_member'),
        commitBehind,
        commit: () => end((held) => committing ?? driver.commitTransaction(held)),
        rollback: () =>
          end(async (held) => {
            if (committing === undefined) return driver.rollbackTransaction(held);
            // The COMMIT left with the last statements: a statement that failed made it a rollback on the
            // server; one that committed means the work failed in code after declaring its last statements.
            // A connection lost with the COMMIT in flight leaves the outcome unknown: that is what to report.
            const committed = await committing.then(
              () => true,
              (error: unknown) => {
                if (isOutcomeUnknown(error)) throw error;
                return false;
              },
            );
            if (committed) throw new CommittedDespiteFailure();
          }),
      };
    },
  };
}
