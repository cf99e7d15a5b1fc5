import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { ModelMessage } from 'ai';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import type { MessageRepository } from '../../../core/ports/storage.js';
import type { ThreadMessagesTable } from './database-schema.js';
import { fromJson, nowIso, toJson, toNumber, translateUniqueViolation } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { writeNextInSequence } from './sql-sequence.js';
import { preparedQuery, preparedQueryFamily } from './prepared-query.js';

const selectThread = preparedQuery((db, args: { threadId: string }) =>
  db.selectFrom('thread_messages').selectAll().where('thread_id', '=', args.threadId).orderBy('seq'),
);

/** Checkpoints of up to this many messages stay compiled; a larger one compiles each time. */
const PREPARED_CHECKPOINT_SIZES = 8;

/**
 * One INSERT … SELECT for a checkpoint of `size` messages, each with its step: every row reads the thread's
 * current maximum `seq` from the same snapshot, so the rows get consecutive numbers and the checkpoint is all
 * or nothing.
 */
const insertCheckpoint = preparedQueryFamily({
  key: (size: number) => String(size),
  keep: (size) => size <= PREPARED_CHECKPOINT_SIZES,
  build: (size) => (_db, args: Record<string, unknown>) => {
    // The step is cast: PostgreSQL types an untyped parameter in a UNION as text.
    const selects = Array.from(
      { length: size },
      (_, index) =>
        sql`SELECT ${args.threadId}, base.last_seq + ${sql.lit(index + 1)}, ${args.runId}, CAST(${args[`step${index}`]} AS INTEGER), ${args[`message${index}`]}, ${args.createdAt} FROM base`,
    );
    return sql<{ seq: number | string }>`
      WITH base AS (SELECT COALESCE(MAX(seq), 0) AS last_seq FROM thread_messages WHERE thread_id = ${args.threadId})
      INSERT INTO thread_messages (thread_id, seq, run_id, step, message, created_at)
      ${sql.join(selects, sql` UNION ALL `)}
      RETURNING seq`;
  },
});

export function threadMessageFromRow(row: Selectable<ThreadMessagesTable>): ThreadMessage {
  return {
    thread_id: row.thread_id,
    seq: toNumber(row.seq),
    run_id: row.run_id,
    step: toNumber(row.step),
    message: fromJson<ModelMessage>(row.message),
    created_at: row.created_at,
  };
}

function assertInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${name} must be an integer, got ${value}`);
}

export class SqlMessageRepository implements MessageRepository {
  constructor(private readonly ctx: SqlContext) {}

  /** One statement per checkpoint (insertCheckpoint). */
  append(
    threadId: string,
    runId: string | null,
    step: number,
    messages: ModelMessage[],
  ): Promise<ThreadMessage[]> {
    return this.appendSteps(threadId, runId, [{ step, messages }]);
  }

  async appendSteps(
    threadId: string,
    runId: string | null,
    parts: readonly { step: number; messages: readonly ModelMessage[] }[],
  ): Promise<ThreadMessage[]> {
    const entries = parts.flatMap(({ step, messages }) => messages.map((message) => ({ step, message })));
    if (entries.length === 0) return [];
    for (const { step } of parts) assertInteger('step', step);
    const createdAt = nowIso(this.ctx);
    const args: Record<string, unknown> = { threadId, runId, createdAt };
    entries.forEach(({ step, message }, index) => {
      args[`step${index}`] = step;
      args[`message${index}`] = toJson(message);
    });
    try {
      const { rows } = await writeNextInSequence(
        this.ctx,
        'thread_messages_thread_seq_uq',
        `thread_messages:${threadId}`,
        (ctx) => insertCheckpoint(entries.length)(ctx, args),
      );
      // Only the numbers come back: a checkpoint's messages are the caller's, not re-read and re-parsed. RETURNING
      // has no guaranteed order; the seqs are consecutive, so sorted they follow the messages' order.
      const seqs = rows.map((row) => toNumber(row.seq)).sort((a, b) => a - b);
      return entries.map(({ step, message }, index) => ({
        thread_id: threadId,
        seq: seqs[index] ?? 0,
        run_id: runId,
        step,
        message,
        created_at: createdAt,
      }));
    } catch (error) {
      return translateUniqueViolation(this.ctx, error, {});
    }
  }

  async list(threadId: string): Promise<ThreadMessage[]> {
    const { rows } = await selectThread(this.ctx, { threadId });
    return rows.map(threadMessageFromRow);
  }
}
