import type { OpenTransaction, TransactionSource } from './sql-context.js';

/** Bounds the latency a member adds to the others of its group. */
const MAX_GROUP = 32;

interface Succeeded<S> {
  member: Member<S>;
  value: unknown;
}

interface Member<S> {
  work: (tx: S) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for an engine with one writer (SQLite): works submitted while a group is running wait, then
 * run one after another in a single transaction, each inside a savepoint, and share its COMMIT. A COMMIT is
 * the dearest statement of a small write (the WAL frames of every page touched, and the checkpoint they
 * bring on), and pages touched by several members (the table's last page, time-ordered indexes) are written
 * once per group instead of once per member. Nothing waits on a timer. A gathering group starts at the end
 * of the event-loop turn its first work arrived in (`setImmediate`), so it takes every work of that turn
 * (better-sqlite3 is synchronous: without this deferral a transaction never yields to the socket reads that
 * bring the next requests, and every group would hold one work). A group that does not gather starts at once;
 * either way a group takes its members once its BEGIN is done, so works submitted meanwhile join it, and works
 * arriving while it runs form the next one.
 *
 * Guarantees: a member that throws rolls back to its savepoint (its writes are gone, the others' stay) and
 * rejects with its error; a member that succeeds resolves only after the COMMIT, and rejects if the COMMIT
 * fails. Members see the writes of earlier members of their group, all of which commit or fail together.
 */
export class CommitGroup<S> {
  readonly #waiting: Member<S>[] = [];
  #running = false;

  constructor(
    private readonly transactions: TransactionSource,
    private readonly bind: (transaction: OpenTransaction) => S,
  ) {}

  /**
   * `gather`: an idle group waits for the end of this event-loop turn before it starts (works arriving from
   * separate socket reads, such as run starts). Without it an idle group starts at once, and only works that
   * arrive while it runs wait for the next one: concurrent runs' commits still share COMMITs, and a lone run
   * pays no event-loop hop per commit.
   */
  run<T>(work: (tx: S) => Promise<T>, gather: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.#running) return;
      this.#running = true;
      if (gather) setImmediate(() => void this.#drain());
      else void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#waiting.length > 0) await this.#runGroup();
    } finally {
      this.#running = false;
    }
  }

  async #runGroup(): Promise<void> {
    let transaction;
    try {
      transaction = await this.transactions.begin();
    } catch (error) {
      for (const member of this.#waiting.splice(0, MAX_GROUP)) member.reject(error);
      return;
    }
    // Taken once the transaction has begun (at least a microtask later, even when the engine begins at once):
    // works submitted while it was being acquired join this group.
    const group = this.#waiting.splice(0, MAX_GROUP);
    const committed = await this.#runMembers(transaction, group);
    // Only now: a member resumes after its transaction is over for good, whatever it does with `tx` next.
    for (const { member, value } of committed) member.resolve(value);
  }

  /** The members that succeeded, once their COMMIT is done; none if the group failed. */
  async #runMembers(transaction: OpenTransaction, group: Member<S>[]): Promise<Succeeded<S>[]> {
    const tx = this.bind(transaction);
    const succeeded: Succeeded<S>[] = [];
    const failed = new Set<Member<S>>();
    const fail = (member: Member<S>, error: unknown) => {
      failed.add(member);
      member.reject(error);
    };
    try {
      if (group.length === 1) {
        const [member] = group as [Member<S>];
        // Alone: the transaction itself is the member's, no savepoint needed.
        try {
          succeeded.push({ member, value: await member.work(tx) });
        } catch (error) {
          fail(member, error);
          await transaction.rollback();
          return [];
        }
      } else {
        for (const member of group) {
          await transaction.savepoint();
          try {
            succeeded.push({ member, value: await member.work(tx) });
          } catch (error) {
            await transaction.rollbackToSavepoint();
            fail(member, error);
          }
          await transaction.releaseSavepoint();
        }
      }
      await transaction.commit();
    } catch (error) {
      // A savepoint statement or the COMMIT failed: nothing of the group is kept, every member not yet
      // refused fails with that error.
      if (transaction.open) {
        try {
          await transaction.rollback();
        } catch {
          // The error that ended the group is the one to report.
        }
      }
      for (const member of group) if (!failed.has(member)) member.reject(error);
      return [];
    }
    return succeeded;
  }
}
