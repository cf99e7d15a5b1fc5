import type { EventBus } from '../core/ports/event-bus.js';
import type { SharedCommitOptions, Storage } from '../core/ports/storage.js';
import type { Run } from '../core/records/run.js';
import type { RunEvent, RunEventType } from '../core/records/run-event.js';

/**
 * How a run's execution commits (steps, endings, child starts): with the commits of other runs executing at
 * once when they coincide, but never waiting for an event-loop turn to gather them, so a lone run pays
 * nothing for it.
 */
export const SHARED_COMMIT: SharedCommitOptions = { gather: false };

/** Text deltas are batched: one row per token would dominate storage and SSE for a chatty model. */
const DELTA_FLUSH_MS = 40;
const DELTA_FLUSH_CHARS = 512;

/** An event not yet appended: its lineage fields are added when it is. */
export interface PendingEvent {
  type: RunEventType;
  payload: Record<string, unknown>;
}

/**
 * The events of a commit, appended once, in ONE insert: buffered text first, then the commit's events, then
 * `tail` (e.g. an ending's `end`, which must come last). Returns everything it appended.
 */
export type AppendBatch = (tail?: PendingEvent[]) => Promise<RunEvent[]>;

export interface RunEmitter {
  emit(type: RunEventType, payload: Record<string, unknown>): Promise<RunEvent>;
  /**
   * Appends the buffered text and `events` and runs `alongside` (e.g. a checkpoint, or the run's ending), all
   * in ONE transaction, then publishes what it appended: a step's checkpoint and its events cost one commit,
   * and no reader sees one without the other. `alongside` appends the batch with `append` when its order
   * matters (an ending moves the status first, then adds its `end` to the batch); if it does not, the batch is
   * appended after it. Events `alongside` returns (appended to other streams) are published after the batch;
   * the batch is what `commit` returns. The transaction is a shared-commit one: the commits of runs executing
   * at once (a fan-out's children) share one COMMIT, each still atomic on its own.
   */
  commit(
    events: PendingEvent[],
    alongside?: (tx: Storage, append: AppendBatch) => Promise<RunEvent[] | void>,
  ): Promise<RunEvent[]>;
  /** Buffers streamed text; flushed before any other event, on size, or on a short timer. */
  delta(text: string): void;
  flush(): Promise<void>;
}

/** Fields every event of a run carries, so a parent's stream can attribute a child's events. */
export function lineageOf(
  run: Pick<Run, 'root_run_id' | 'created_by_run_id' | 'depth'> & {
    input: Pick<Run['input'], 'parent_tool_call_id'>;
  },
): Record<string, unknown> {
  return {
    root_run_id: run.root_run_id,
    parent_run_id: run.created_by_run_id,
    parent_tool_call_id: run.input.parent_tool_call_id ?? null,
    depth: run.depth,
  };
}

/** Persists first (the database is the source of truth), then publishes for live subscribers. */
export async function appendAndPublish(
  storage: Storage,
  bus: EventBus,
  runId: string,
  type: RunEventType,
  payload: Record<string, unknown>,
): Promise<RunEvent> {
  const event = await storage.events.append({ run_id: runId, type, payload });
  await publishQuietly(bus, event);
  return event;
}

/** Publishing is best effort: a subscriber that misses an event catches up from storage. */
export async function publishQuietly(bus: EventBus, event: RunEvent): Promise<void> {
  try {
    await bus.publish(event);
  } catch {
    // Readers recover from storage; a bus hiccup must not fail the run.
  }
}

export function createRunEmitter(storage: Storage, bus: EventBus, run: Run): RunEmitter {
  const lineage = lineageOf(run);
  let buffer = '';
  let timer: NodeJS.Timeout | undefined;
  // Events are appended strictly one after another so their seq order is the order they were emitted in.
  let chain: Promise<unknown> = Promise.resolve();

  const enqueue = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work);
    chain = next.catch(() => undefined);
    return next;
  };

  const takeBuffer = (): string => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const text = buffer;
    buffer = '';
    return text;
  };

  const writeDelta = (text: string): Promise<unknown> =>
    text === ''
      ? Promise.resolve()
      : appendAndPublish(storage, bus, run.id, 'message_delta', { ...lineage, text });

  const flush = (): Promise<void> => {
    const text = takeBuffer();
    return enqueue(async () => {
      await writeDelta(text);
    });
  };

  return {
    emit(type, payload) {
      const text = takeBuffer();
      return enqueue(async () => {
        await writeDelta(text);
        return appendAndPublish(storage, bus, run.id, type, { ...lineage, ...payload });
      });
    },
    commit(events, alongside) {
      const text = takeBuffer();
      return enqueue(async () => {
        const own = text === '' ? events : [{ type: 'message_delta' as const, payload: { text } }, ...events];
        const { written, others } = await storage.sharedCommitTransaction(async (tx) => {
          let appended: RunEvent[] | undefined;
          const append: AppendBatch = async (tail = []) => {
            if (appended) throw new Error(`the events of a commit of run ${run.id} were appended twice`);
            appended = [];
            appended = await tx.events.appendMany(
              run.id,
              [...own, ...tail].map((event) => ({
                type: event.type,
                payload: { ...lineage, ...event.payload },
              })),
            );
            return appended;
          };
          const besides = alongside ? await alongside(tx, append) : undefined;
          return { written: appended ?? (await append()), others: besides ?? [] };
        }, SHARED_COMMIT);
        for (const event of written) await publishQuietly(bus, event);
        for (const event of others) await publishQuietly(bus, event);
        return written;
      });
    },
    delta(text) {
      buffer += text;
      if (buffer.length >= DELTA_FLUSH_CHARS) {
        void flush().catch(() => undefined);
      } else {
        timer ??= setTimeout(() => void flush().catch(() => undefined), DELTA_FLUSH_MS);
      }
    },
    flush,
  };
}
