import { settleInOrder } from '../../core/settle-in-order.js';
import type { EventBus } from '../../core/ports/event-bus.js';
import type { RunEventBatch, StepMessages, Storage } from '../../core/ports/storage.js';
import type { Run } from '../../core/records/run.js';
import type { RunEvent, RunEventType } from '../../core/records/run-event.js';
import {
  isOutcomeUnknown,
  readingThrough,
  writingThrough,
  type StorageOutage,
} from '../../core/runs/storage-outage.js';
import { createStandaloneAppends } from './standalone-appends.js';
import { lineageOf } from './lineage-of.js';
import { publishAllQuietly } from './publish-quietly.js';
import { EndingRaced } from './ending-raced.js';
import type { AppendBatch, CommitAttempt, RunEmitter } from './run-emitter.js';
import { SHARED_COMMIT } from './shared-commit.js';

/** Text deltas are batched: one row per token would dominate storage and SSE for a chatty model. */
const DELTA_FLUSH_MS = 40;
const DELTA_FLUSH_CHARS = 512;

/** How the emitter holds any pending event; what it is given is typed (`emit`, `commit`, `announce`). */
interface QueuedEvent {
  type: RunEventType;
  payload: Record<string, unknown>;
}

/** A checkpoint held back (`RunEmitter.hold`): its events (text buffered before it first), and its messages. */
interface HeldCommit {
  events: QueuedEvent[];
  messages: StepMessages;
}

/**
 * `outage`: a write that met a database outage and surely wrote nothing is sent again once the outage is waited
 * out (docs/scale-out.md, "Outages"), so a step's results computed during it are kept, not computed again; a
 * write whose outcome is unknown is never sent twice blindly: a step's commit and an append outside a
 * transaction are looked up once the database is back and sent again only when they did not land; anything
 * else fails, and the run goes on from what is committed.
 */
export function createRunEmitter(
  storage: Storage,
  bus: EventBus,
  run: Run,
  outage?: StorageOutage,
): RunEmitter {
  const lineage = lineageOf(run);
  let buffer = '';
  let lead: QueuedEvent | undefined;
  let timer: NodeJS.Timeout | undefined;
  let held: HeldCommit[] = [];
  /** How much work was queued when the first held commit was: work queued since writes them itself. */
  let heldAt = 0;
  /** An adoption in flight, settled when the adopting transaction is. */
  let adopting: Promise<void> | undefined;
  // Events are appended strictly one after another so their seq order is the order they were emitted in.
  let chain: Promise<unknown> = Promise.resolve();
  let queued = 0;

  /**
   * A write whose outcome is unknown (`wroteNothing` false), from wherever it was sent, a timer's flush too:
   * every later write fails with it, so the attempt does not go on over a hole it cannot see, but starts over
   * from what is committed (docs/scale-out.md, "Outages").
   */
  let unknownOutcome: Error | undefined;
  const enqueue = <T>(work: () => Promise<T>): Promise<T> => {
    queued += 1;
    const next = chain.then(() => {
      if (unknownOutcome !== undefined) throw unknownOutcome;
      return work();
    });
    chain = next.catch((error: unknown) => {
      if (outage && isOutcomeUnknown(error)) unknownOutcome ??= error as Error;
    });
    return next;
  };

  /** The announced event, then the buffered text, then `events`; the buffer is emptied. */
  const takeBuffer = (events: readonly QueuedEvent[] = []): QueuedEvent[] => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const text = buffer === '' ? [] : [{ type: 'message_delta' as const, payload: { text: buffer } }];
    const taken = [...(lead ? [lead] : []), ...text, ...events];
    lead = undefined;
    buffer = '';
    return taken;
  };

  const takeHeld = (): HeldCommit[] => {
    const taken = held;
    held = [];
    return taken;
  };

  // Object.assign, not `{ ...lineage, ...payload }`: V8 copies two spreads of small objects of many shapes
  // through its slow path (2.8 µs against 0.13 µs per event in a scratch loop; −3 % of a dispatch with the
  // other two such payloads, `end` and `subagent_update`). The payloads' keys are this runtime's own.
  const ownBatch = (events: readonly QueuedEvent[]): RunEventBatch => ({
    run_id: run.id,
    events: events.map((event) => ({ type: event.type, payload: Object.assign({}, lineage, event.payload) })),
  });

  // Appends outside a transaction, which survive an answer lost with its connection (standalone-appends.ts).
  const alone = createStandaloneAppends({ storage, runId: run.id, outage });

  /** This run's events and `besides` in one insert. */
  const appendOwn = async (
    store: Storage,
    events: readonly QueuedEvent[],
    besides: readonly RunEventBatch[] = [],
  ): Promise<{ own: RunEvent[]; others: RunEvent[] }> => {
    const batches = [ownBatch(events), ...besides];
    // Inside a transaction the transaction is what is sent again.
    const [mine = [], ...rest] =
      store === storage ? await alone.append(batches) : await store.events.appendBatches(batches);
    return { own: mine, others: rest.flat() };
  };

  const schedule = () => {
    timer ??= setTimeout(() => void flush().catch(() => undefined), DELTA_FLUSH_MS);
  };

  const publishAll = async (events: readonly RunEvent[]): Promise<void> => {
    await publishAllQuietly(bus, events);
  };

  /**
   * One transaction, run in the chain: the messages of the held commits `prior` and `messages` in one insert,
   * then `alongside`, and all the events in one insert, the held ones first; then published. Held commits that
   * fail are held again.
   */
  const write = async (
    prior: HeldCommit[],
    events: readonly QueuedEvent[],
    alongside?: (tx: Storage, append: AppendBatch, attempt: CommitAttempt) => Promise<RunEvent[] | void>,
    messages?: StepMessages,
  ): Promise<RunEvent[]> => {
    const leading = prior.flatMap((commit) => commit.events);
    const steps = [...prior.map((commit) => commit.messages), ...(messages ? [messages] : [])];
    const commitOnce = (attempt: CommitAttempt) =>
      writingThrough(outage, () =>
        storage.sharedCommitTransaction(async (tx) => {
          let appended: { own: RunEvent[]; others: RunEvent[] } | undefined;
          const append: AppendBatch = async (tail = [], besides = []) => {
            if (appended) throw new Error(`the events of a commit of run ${run.id} were appended twice`);
            appended = { own: [], others: [] };
            appended = await appendOwn(tx, [...leading, ...events, ...tail], besides);
            return appended.own.slice(leading.length);
          };
          // The step's messages leave with the first statement behind them (an ending's compare-and-set, or
          // the events): one round trip on PostgreSQL (docs/scale-out.md, "What scales how"). Written first,
          // so whatever `alongside` reads of the thread includes them.
          const [, returned] = await settleInOrder([
            steps.length > 0 ? tx.messages.appendSteps(run.thread_id, run.id, steps) : undefined,
            (async () => {
              const alongsideReturned = alongside ? await alongside(tx, append, attempt) : undefined;
              if (!appended) await append();
              return alongsideReturned;
            })(),
          ]);
          return {
            written: appended?.own ?? [],
            others: [...(appended?.others ?? []), ...(returned ?? [])],
          };
        }, SHARED_COMMIT),
      );
    /**
     * A commit whose COMMIT was answered by a dying connection (`committed: 'unknown'`) carried a step's
     * messages: once the database is back they say whether it landed (a step number is written once per run).
     * When it did not, it surely wrote nothing and is sent again, so the model is not asked that turn twice;
     * when it did, the attempt starts over from what is committed, as for any write of unknown outcome.
     */
    const commitKnown = async (attempt: CommitAttempt) => {
      const last = steps.at(-1);
      for (;;) {
        try {
          return await commitOnce(attempt);
        } catch (error) {
          if (!outage || !isOutcomeUnknown(error) || last === undefined) throw error;
          await outage.waitOut();
          const thread = await readingThrough(outage, () => storage.messages.list(run.thread_id));
          if (thread.some((entry) => entry.run_id === run.id && entry.step === last.step)) throw error;
        }
      }
    };
    try {
      // Rolled back whole when an ending's speculative compare-and-set missed: run again, the ending careful.
      const { written, others } = await commitKnown({ careful: false }).catch((error: unknown) => {
        if (error instanceof EndingRaced) return commitKnown({ careful: true });
        throw error;
      });
      alone.saw(written);
      await publishAll(others.length === 0 ? written : [...written, ...others]);
      return written.slice(leading.length);
    } catch (error) {
      held = [...prior, ...held];
      throw error;
    }
  };

  /** The held commits on their own: first thing in work that appends without a transaction. */
  const writeHeld = async (): Promise<void> => {
    const prior = takeHeld();
    if (prior.length > 0) await write(prior, []);
  };

  const flush = (): Promise<void> => {
    const events = takeBuffer();
    return enqueue(async () => {
      const prior = takeHeld();
      if (prior.length > 0) {
        await write(prior, events);
        return;
      }
      if (events.length === 0) return;
      const { own } = await appendOwn(storage, events);
      await publishAll(own);
    });
  };

  return {
    emit(type, payload, besides) {
      const events = takeBuffer([{ type, payload }]);
      return enqueue(async () => {
        await writeHeld();
        const { own, others } = await appendOwn(storage, events, besides);
        await publishAll(others.length === 0 ? own : [...own, ...others]);
        const event = own[own.length - 1];
        if (!event) throw new Error(`run_events insert for ${run.id} returned no row`);
        return event;
      });
    },
    commit(events, alongside, messages) {
      const own = takeBuffer(events);
      return enqueue(() => write(takeHeld(), own, alongside, messages));
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
    hold(events, messages) {
      if (held.length === 0) heldAt = queued;
      held.push({ events: takeBuffer(events), messages });
      schedule();
    },
    async adopt() {
      if (adopting) {
        await adopting;
        return undefined;
      }
      // After a write of unknown outcome nothing more of this attempt may land (`unknownOutcome`).
      if (held.length === 0 || heldAt !== queued || unknownOutcome !== undefined) return undefined;
      const prior = takeHeld();
      // The chain waits for the adopting transaction: nothing of this run's is appended before its events.
      let open: () => void = () => undefined;
      const adopted = new Promise<void>((resolve) => (open = resolve));
      adopting = adopted;
      void enqueue(() => adopted);
      let settled = false;
      return {
        messages: { threadId: run.thread_id, runId: run.id, parts: prior.map((commit) => commit.messages) },
        events: ownBatch(prior.flatMap((commit) => commit.events)),
        async settle(appended) {
          if (settled) return;
          settled = true;
          try {
            if (appended) {
              alone.saw(appended);
              await publishAll(appended);
            } else held = [...prior, ...held];
          } finally {
            adopting = undefined;
            open();
          }
        },
      };
    },
  };
}
