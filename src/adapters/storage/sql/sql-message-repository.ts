import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { ChatMessage } from '../../../core/thread/chat-message.js';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import type { MessageRepository, StepMessages, ThreadMessageBatch } from '../../../core/ports/storage.js';
import type { ThreadMessagesTable } from './database-schema.js';
import {
  fromJson,
  fromNullableJson,
  nowIso,
  toJson,
  toNumber,
  translateUniqueViolation,
} from './sql-context.js';
import type { Run, TokenUsage } from '../../../core/records/run.js';
import { callUsageOf, settledUsage, type ModelCallUsage } from '../../../core/runs/run-usage.js';
import type { SqlContext } from './sql-context.js';
import { writeNextInSequence } from './sql-sequence.js';
import { preparedQuery, preparedQueryFamily } from './prepared-query.js';
import { sequenceBase, sequenceKey } from './sequence-base.js';

const selectThread = preparedQuery((db, args: { threadId: string }) =>
  db.selectFrom('thread_messages').selectAll().where('thread_id', '=', args.threadId).orderBy('seq'),
);

/** Checkpoints of up to this many messages per thread, and two threads, stay compiled; larger ones compile each time. */
const PREPARED_CHECKPOINT_SIZES = 8;
const PREPARED_THREADS = 2;

/**
 * One INSERT … SELECT for checkpoints of `shape[b]` messages in thread b, each with its step: every row of a
 * thread numbers on from that thread's last `seq` (sequence-base.ts), so its rows get consecutive numbers,
 * and the whole write is all or nothing.
 */
const insertCheckpoints = preparedQueryFamily({
  key: (shape: readonly number[]) => shape.join(','),
  keep: (shape) =>
    shape.length <= PREPARED_THREADS && shape.every((size) => size <= PREPARED_CHECKPOINT_SIZES),
  build: (shape) => (_db, args: Record<string, unknown>, dialect) => {
    const bases = shape.map((size, b) =>
      sequenceBase(dialect, {
        name: `base${b}`,
        table: 'thread_messages',
        owner: args[`thread${b}`],
        key: args[`key${b}`],
        size,
      }),
    );
    // The step is cast: PostgreSQL types an untyped parameter in a UNION as text.
    const selects = shape.flatMap((size, b) =>
      Array.from(
        { length: size },
        (_, index) =>
          sql`SELECT ${args[`thread${b}`]}, ${sql.raw(`base${b}`)}.last_seq + ${sql.lit(index + 1)}, ${args[`run${b}`]}, CAST(${args[`step${b}_${index}`]} AS INTEGER), ${args[`message${b}_${index}`]}, ${args.createdAt}, CAST(${args[`usage${b}_${index}`]} AS TEXT) FROM ${sql.raw(`base${b}`)}`,
      ),
    );
    return sql<{ thread_id: string; seq: number | string }>`
      WITH ${sql.join(bases)}
      INSERT INTO thread_messages (thread_id, seq, run_id, step, message, created_at, usage)
      ${sql.join(selects, sql` UNION ALL `)}
      RETURNING thread_id, seq`;
  },
});

export function threadMessageFromRow(row: Selectable<ThreadMessagesTable>): ThreadMessage {
  return {
    thread_id: row.thread_id,
    seq: toNumber(row.seq),
    run_id: row.run_id,
    step: toNumber(row.step),
    message: fromJson<ChatMessage>(row.message),
    created_at: row.created_at,
    usage: callUsageOf(fromNullableJson<unknown>(row.usage)),
  };
}

function assertInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${name} must be an integer, got ${value}`);
}

export class SqlMessageRepository implements MessageRepository {
  constructor(private readonly ctx: SqlContext) {}

  /** One statement per checkpoint (insertCheckpoints). */
  append(
    threadId: string,
    runId: string | null,
    step: number,
    messages: ChatMessage[],
  ): Promise<ThreadMessage[]> {
    return this.appendSteps(threadId, runId, [{ step, messages }]);
  }

  async appendSteps(
    threadId: string,
    runId: string | null,
    parts: readonly StepMessages[],
  ): Promise<ThreadMessage[]> {
    const [appended = []] = await this.appendBatches([{ threadId, runId, parts }]);
    return appended;
  }

  async appendBatches(batches: readonly ThreadMessageBatch[]): Promise<ThreadMessage[][]> {
    for (const batch of batches) for (const { step } of batch.parts) assertInteger('step', step);
    const threads = batches.map((batch) => ({
      batch,
      // A part's usage belongs to its first message: the model's turn (StepMessages).
      entries: batch.parts.flatMap(({ step, messages, usage }) =>
        messages.map((message, index) => ({ step, message, usage: index === 0 ? (usage ?? null) : null })),
      ),
    }));
    const written = threads.filter(({ entries }) => entries.length > 0);
    if (written.length === 0) return batches.map(() => []);
    if (new Set(written.map(({ batch }) => batch.threadId)).size !== written.length) {
      throw new Error('appendBatches takes each thread at most once');
    }
    const createdAt = nowIso(this.ctx);
    const args: Record<string, unknown> = { createdAt };
    written.forEach(({ batch, entries }, b) => {
      args[`thread${b}`] = batch.threadId;
      args[`key${b}`] = sequenceKey('thread_messages', batch.threadId);
      args[`run${b}`] = batch.runId;
      entries.forEach(({ step, message, usage }, index) => {
        args[`step${b}_${index}`] = step;
        args[`message${b}_${index}`] = toJson(message);
        args[`usage${b}_${index}`] = usage === null ? null : toJson(usage);
      });
    });
    try {
      const { rows } = await writeNextInSequence(this.ctx, 'thread_messages_thread_seq_uq', (ctx) =>
        insertCheckpoints(written.map(({ entries }) => entries.length))(ctx, args),
      );
      // Only the numbers come back: a checkpoint's messages are the caller's, not re-read and re-parsed. RETURNING
      // has no guaranteed order; a thread's seqs are consecutive, so sorted they follow its messages' order.
      const seqs = new Map<string, number[]>();
      for (const row of rows)
        seqs.set(row.thread_id, [...(seqs.get(row.thread_id) ?? []), toNumber(row.seq)]);
      return threads.map(({ batch, entries }) => {
        const numbers = (seqs.get(batch.threadId) ?? []).sort((x, y) => x - y);
        return entries.map(({ step, message, usage }, index) => ({
          thread_id: batch.threadId,
          seq: numbers[index] ?? 0,
          run_id: batch.runId,
          step,
          message,
          created_at: createdAt,
          usage,
        }));
      });
    } catch (error) {
      return translateUniqueViolation(this.ctx, error, {});
    }
  }

  async list(threadId: string): Promise<ThreadMessage[]> {
    const { rows } = await selectThread(this.ctx, { threadId });
    return rows.map(threadMessageFromRow);
  }

  async settledUsageOf(runs: readonly Pick<Run, 'id' | 'thread_id'>[]): Promise<Map<string, TokenUsage>> {
    const settled = new Map<string, TokenUsage>();
    if (runs.length === 0) return settled;
    // By thread, the unique (thread_id, seq) index's prefix: there is no index by run (lean-indexes-migration).
    const rows = await this.ctx.db
      .selectFrom('thread_messages')
      .select(['run_id', 'usage'])
      .where('thread_id', 'in', [...new Set(runs.map((run) => run.thread_id))])
      .where(
        'run_id',
        'in',
        runs.map((run) => run.id),
      )
      .where('usage', 'is not', null)
      .execute();
    const calls = new Map<string, ModelCallUsage[]>();
    for (const row of rows) {
      const call = callUsageOf(fromNullableJson<unknown>(row.usage));
      if (row.run_id === null || call === null) continue;
      calls.set(row.run_id, [...(calls.get(row.run_id) ?? []), call]);
    }
    for (const [runId, list] of calls) settled.set(runId, settledUsage(list));
    return settled;
  }
}
