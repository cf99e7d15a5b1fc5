import type { EventBus } from '../core/ports/event-bus.js';
import type { RunEventBatch, SharedCommitOptions, Storage } from '../core/ports/storage.js';
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
 * `tail` (e.g. an ending's `end`, which must come last); other runs' batches in `besides` (a parent's
 * `subagent_update`) go in the same statement. Returns what it appended to this run's stream; the commit
 * publishes the rest after it.
 */
export type AppendBatch = (tail?: PendingEvent[], besides?: readonly RunEventBatch[]) => Promise<RunEvent[]>;

export interface RunEmitter {
  /**
   * Appends the buffered text and one event, and other runs' batches (`besides`), in one statement, then
   * publishes them in that order. Returns the event.
   */
  emit(
    type: RunEventType,
    payload: Record<string, unknown>,
    besides?: readonly RunEventBatch[],
  ): Promise<RunEvent>;
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
  /**
   * Holds an event that opens the stream (a root run's attempt `metadata`) until the next append, which it
   * leads, or a short timer: a run whose first step commits at once spends no statement of its own on it,
   * and a slow first step delays it by DELTA_FLUSH_MS at most.
   */
  announce(type: RunEventType, payload: Record<string, unknown>): void;
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

/** What waits to be appended: the announced event, then the buffered text. */
interface Held {
  lead: PendingEvent | undefined;
  text: string;
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
  let lead: Held['lead'];
  let timer: NodeJS.Timeout | undefined;
  // Events are appended strictly one after another so their seq order is the order they were emitted in.
  let chain: Promise<unknown> = Promise.resolve();

  const enqueue = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work);
    chain = next.catch(() => undefined);
    return next;
  };

  const takeBuffer = (): Held => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const held = { lead, text: buffer };
    lead = undefined;
    buffer = '';
    return held;
  };

  /** This run's events (the held lead and text first) and `besides` in one insert, published in that order. */
  const appendOwn = async (
    store: Storage,
    held: Held,
    events: PendingEvent[],
    besides: readonly RunEventBatch[] = [],
  ): Promise<{ own: RunEvent[]; others: RunEvent[] }> => {
    const text = held.text === '' ? [] : [{ type: 'message_delta' as const, payload: { text: held.text } }];
    const own = [...(held.lead ? [held.lead] : []), ...text, ...events];
    const [mine = [], ...rest] = await store.events.appendBatches([
      {
        run_id: run.id,
        events: own.map((event) => ({ type: event.type, payload: { ...lineage, ...event.payload } })),
      },
      ...besides,
    ]);
    return { own: mine, others: rest.flat() };
  };

  const schedule = () => {
    timer ??= setTimeout(() => void flush().catch(() => undefined), DELTA_FLUSH_MS);
  };

  const publishAll = async (events: readonly RunEvent[]): Promise<void> => {
    for (const event of events) await publishQuietly(bus, event);
  };

  const flush = (): Promise<void> => {
    const held = takeBuffer();
    return enqueue(async () => {
      if (held.text === '' && !held.lead) return;
      const { own } = await appendOwn(storage, held, []);
      await publishAll(own);
    });
  };

  return {
    emit(type, payload, besides) {
      const held = takeBuffer();
      return enqueue(async () => {
        const { own, others } = await appendOwn(storage, held, [{ type, payload }], besides);
        await publishAll(own);
        await publishAll(others);
        const event = own[own.length - 1];
        if (!event) throw new Error(`run_events insert for ${run.id} returned no row`);
        return event;
      });
    },
    commit(events, alongside) {
      const held = takeBuffer();
      return enqueue(async () => {
        const { written, others } = await storage.sharedCommitTransaction(async (tx) => {
          let appended: { own: RunEvent[]; others: RunEvent[] } | undefined;
          const append: AppendBatch = async (tail = [], besides = []) => {
            if (appended) throw new Error(`the events of a commit of run ${run.id} were appended twice`);
            appended = { own: [], others: [] };
            appended = await appendOwn(tx, held, [...events, ...tail], besides);
            return appended.own;
          };
          const returned = alongside ? await alongside(tx, append) : undefined;
          if (!appended) await append();
          return {
            written: appended?.own ?? [],
            others: [...(appended?.others ?? []), ...(returned ?? [])],
          };
        }, SHARED_COMMIT);
        await publishAll(written);
        await publishAll(others);
        return written;
      });
    },
    announce(type, payload) {
      // One lead at a time: an attempt announces itself once; a second one sends the first on its way.
      if (lead) void flush().catch(() => undefined);
      lead = { type, payload };
      schedule();
    },
    delta(text) {
      buffer += text;
      if (buffer.length >= DELTA_FLUSH_CHARS) {
        void flush().catch(() => undefined);
      } else {
        schedule();
      }
    },
    flush,
  };
}
