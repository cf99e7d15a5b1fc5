import type { Redis } from 'ioredis';
import type { Subscription } from '../../../core/ports/event-bus.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import { delay } from '../../../core/delay.js';
import { compareStreamIds } from './compare-stream-ids.js';
import { rejectClosedBus } from './reject-closed-bus.js';

/*
 * Live subscribers of this process are served by ONE blocking `XREAD` loop on a dedicated connection,
 * over the streams of every run someone here listens to, fanning each entry out to that run's listeners.
 * Why streams plus XREAD rather than pub/sub for events:
 * - gapless from the moment `subscribe` resolves without waiting for the loop: `subscribe` records the
 *   stream's last entry id (XREVRANGE … COUNT 1) and the loop reads strictly after it, so an event
 *   published after `subscribe` resolved is read even if the loop has not yet added the stream;
 * - resumable: the loop keeps a cursor (the last entry id) per stream; after a dropped connection it
 *   continues from there, where pub/sub would silently lose whatever was published in between;
 * - ordered per run, as the stream is.
 * When the set of streams changes while the loop is blocked, the loop is woken with CLIENT UNBLOCK from
 * the command connection (the BLOCK timeout is the fallback).
 */

/** The field of a stream entry that holds the event JSON. */
export const STREAM_ENTRY_FIELD = 'event';

export interface RedisStreamReaderOptions {
  /** Short commands (XREVRANGE, CLIENT UNBLOCK); shared with the bus's other commands. */
  command: Redis;
  /**
   * Dedicated to the blocking XREAD; the reader disconnects it on close. Give it a `connectionName` unique to
   * it: after a reconnect the loop finds its new client id by that name, to unblock it.
   */
  reader: Redis;
  streamKey: (runId: string) => string;
  blockMs: number;
  report: (error: unknown) => void;
  /** Sees each decoded entry before its listeners do, with the entry's fields (what else the publisher put there). */
  onEntry?: (event: RunEvent, fields: string[]) => void;
  /**
   * A new stream is read from its first entry instead of its tail, with no XREVRANGE before the subscription
   * resolves: for streams whose every entry a new listener wants anyway (a run's ends, of which there is one).
   */
  fromStart?: boolean;
}

export interface RedisStreamReader {
  subscribe(runId: string, listener: (event: RunEvent) => void): Promise<Subscription>;
  /**
   * An event this process is appending, heard by this process's listeners now instead of one XREAD later, as
   * the object it is (what the process attached to it, such as the row its `end` committed, goes with it, as on
   * the in-memory bus); when the loop reads its entry, only listeners that subscribed since hear it (by its
   * `seq`). Only for streams where a `seq` is written once (a run's ends).
   */
  deliverPublished(event: RunEvent): void;
  /** Silences every listener and ends the loop. */
  close(): Promise<void>;
}

interface EventListener {
  listener: (event: RunEvent) => void;
  active: boolean;
  /** Stream id this listener's delivery starts after. */
  after: string;
}

interface RunStream {
  key: string;
  /** Id of the last entry the loop read from this stream; the next XREAD starts after it. */
  cursor: string;
  listeners: Set<EventListener>;
  /**
   * By `seq`, the listeners that heard an entry as this process published it (`deliverPublished`): the loop
   * delivers it once more only to listeners that came after.
   */
  published?: Map<number, Set<EventListener>>;
}

type StreamEntry = [id: string, fields: string[]];
type XreadReply = [key: string, entries: StreamEntry[]][] | null;

const READ_COUNT = 500;
const RETRY_DELAY_MS = 200;

function isRunEvent(value: unknown): value is RunEvent {
  if (typeof value !== 'object' || value === null) return false;
  const { run_id: runId, seq, type } = value as Record<string, unknown>;
  return typeof runId === 'string' && typeof seq === 'number' && typeof type === 'string';
}

/** The bus's event half: run streams read by one XREAD loop, starting at once. */
export function createRedisStreamReader(options: RedisStreamReaderOptions): RedisStreamReader {
  const { command, reader, streamKey, blockMs, report, onEntry, fromStart = false } = options;
  const runs = new Map<string, RunStream>();
  let closed = false;
  /** Bumped whenever a stream joins the read set; the loop notes which generation its XREAD covers. */
  let generation = 0;
  let blockedGeneration = -1;
  let blocking = false;
  let readerClientId: number | undefined;
  let wakeIdle: (() => void) | undefined;
  let stopLoop: () => void = () => undefined;
  // What the loop waits for ends with `close` too: ioredis never settles the commands of a connection that is
  // disconnected while it reconnects (Redis away), so the loop could not end otherwise.
  const stopped = new Promise<undefined>((resolve) => (stopLoop = () => resolve(undefined)));
  const unlessClosed = <T>(pending: Promise<T>): Promise<T | undefined> => Promise.race([pending, stopped]);
  reader.on('close', () => (readerClientId = undefined));

  /** The event an entry read from the stream holds, handed to `onEntry`; undefined (reported) when it holds none. */
  function decode(stream: RunStream, id: string, fields: string[]): RunEvent | undefined {
    let event: unknown;
    try {
      const index = fields.indexOf(STREAM_ENTRY_FIELD);
      event = JSON.parse(index >= 0 ? (fields[index + 1] ?? '') : '');
      if (isRunEvent(event)) onEntry?.(event, fields);
    } catch (error) {
      report(new Error(`Undecodable entry ${id} in ${stream.key}`, { cause: error }));
      return undefined;
    }
    if (isRunEvent(event)) return event;
    report(new Error(`Entry ${id} in ${stream.key} is not a run event`));
    return undefined;
  }

  /** `id` undefined: an event this process is appending, which every listener of the stream hears. */
  function deliver(stream: RunStream, id: string | undefined, event: RunEvent): void {
    // Snapshot: a listener added while delivering starts with the next entry anyway (its `after`).
    const listeners = [...stream.listeners];
    let heard: Set<EventListener> | undefined;
    if (id === undefined) (stream.published ??= new Map()).set(event.seq, new Set(listeners));
    else {
      heard = stream.published?.get(event.seq);
      stream.published?.delete(event.seq);
    }
    for (const entry of listeners) {
      if (!entry.active || heard?.has(entry)) continue;
      if (id !== undefined && compareStreamIds(id, entry.after) <= 0) continue;
      try {
        entry.listener(event);
      } catch (error) {
        report(error);
      }
    }
  }

  async function readLoop(): Promise<void> {
    while (!closed) {
      if (runs.size === 0) {
        await new Promise<void>((resolve) => (wakeIdle = resolve));
        wakeIdle = undefined;
        continue;
      }
      let streams: RunStream[] = [];
      let reply: XreadReply | undefined;
      try {
        readerClientId ??= Number(await unlessClosed(reader.client('ID')));
        if (closed) return;
        // Snapshot and generation in the same tick as the XREAD is sent, so no stream slips in between.
        streams = [...runs.values()];
        if (streams.length === 0) continue;
        blockedGeneration = generation;
        blocking = true;
        reply = await unlessClosed(
          reader.xread(
            'COUNT',
            READ_COUNT,
            'BLOCK',
            blockMs,
            'STREAMS',
            ...streams.map((stream) => stream.key),
            ...streams.map((stream) => stream.cursor),
          ),
        );
        if (closed) return;
      } catch (error) {
        if (closed) return;
        report(error);
        await delay(RETRY_DELAY_MS);
        continue;
      } finally {
        blocking = false;
      }
      for (const [key, entries] of reply ?? []) {
        const stream = streams.find((candidate) => candidate.key === key);
        if (!stream) continue;
        for (const [id, fields] of entries) {
          if (compareStreamIds(id, stream.cursor) > 0) stream.cursor = id;
          // Nobody here listens any more (a parent that heard its child's end as this process published it, and
          // stopped waiting): the stream has left the read set, and its entries need no decoding.
          if (stream.listeners.size === 0) continue;
          const event = decode(stream, id, fields);
          if (event) deliver(stream, id, event);
        }
      }
    }
  }

  /** Makes the loop re-read the set of streams: wakes it when idle, unblocks its XREAD when blocked. */
  async function refreshReadSet(): Promise<void> {
    generation += 1;
    const wanted = generation;
    if (wakeIdle) {
      wakeIdle();
      return;
    }
    // CLIENT UNBLOCK can arrive before the XREAD it targets (two connections): retry briefly, until the
    // loop is blocked on a read that includes the new stream. The BLOCK timeout covers a lost wake-up.
    for (let attempt = 0; attempt < 20 && !closed; attempt += 1) {
      if (blockedGeneration >= wanted) return;
      if (blocking) {
        try {
          const id = await blockedReaderId();
          if (id !== undefined && Number(await command.client('UNBLOCK', id)) === 1) return;
        } catch (error) {
          report(error);
          return;
        }
      }
      await delay(2 * (attempt + 1));
    }
  }

  /**
   * Everything after the stream's current tail is the new listener's; an absent stream starts at the beginning.
   * While Redis is away the tail is unknown: the listener then hears the whole stream once it is back, which its
   * reader de-duplicates (an SSE stream by seq, a wait by the run's one `end`), instead of failing to subscribe.
   */
  async function tailOf(key: string): Promise<string> {
    if (command.status !== 'ready') return '0-0';
    try {
      return (await command.xrevrange(key, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
    } catch (error) {
      report(error);
      return '0-0';
    }
  }

  /**
   * The blocking connection's client id, for CLIENT UNBLOCK from the command connection. A reconnect gives the
   * connection a new id while the loop may be blocked in the XREAD that ioredis sent again, so the id is then
   * looked up by the connection's name instead of asked of the connection itself.
   */
  async function blockedReaderId(): Promise<number | undefined> {
    if (readerClientId !== undefined) return readerClientId;
    const name = reader.options.connectionName;
    if (!name) return undefined;
    const clients = String(await command.client('LIST'));
    const line = clients.split('\n').find((candidate) => candidate.includes(` name=${name} `));
    const id = Number(/^id=(\d+)/.exec(line ?? '')?.[1]);
    readerClientId ??= Number.isInteger(id) ? id : undefined;
    return readerClientId;
  }
  // After a reconnect: a new client id, and the XREAD sent again reads the streams of before the outage, so it
  // is interrupted to read the current set (subscriptions made while Redis was away included).
  let readyBefore = false;
  const onReaderReady = (): void => {
    readerClientId = undefined;
    if (readyBefore) void refreshReadSet();
    readyBefore = true;
  };
  reader.on('ready', onReaderReady);
  if (reader.status === 'ready') readyBefore = true;

  const loop = readLoop();

  return {
    async subscribe(runId, listener) {
      if (closed) return rejectClosedBus();
      const key = streamKey(runId);
      const tail = fromStart ? '0-0' : await tailOf(key);
      if (closed) return rejectClosedBus();
      const entry: EventListener = { listener, active: true, after: tail };
      let stream = runs.get(runId);
      if (stream) {
        stream.listeners.add(entry);
      } else {
        stream = { key, cursor: tail, listeners: new Set([entry]) };
        runs.set(runId, stream);
        void refreshReadSet();
      }
      const owner = stream;
      return {
        unsubscribe() {
          entry.active = false;
          owner.listeners.delete(entry);
          // The loop drops the stream from its next XREAD; no need to interrupt the current one.
          if (owner.listeners.size === 0 && runs.get(runId) === owner) runs.delete(runId);
          return Promise.resolve();
        },
      } satisfies Subscription;
    },

    deliverPublished(event) {
      const stream = runs.get(event.run_id);
      if (!closed && stream) deliver(stream, undefined, event);
    },

    async close() {
      closed = true;
      for (const stream of runs.values()) for (const entry of stream.listeners) entry.active = false;
      runs.clear();
      wakeIdle?.();
      reader.off('ready', onReaderReady);
      stopLoop();
      // disconnect() also aborts the blocked XREAD, which ends the loop.
      reader.disconnect();
      await loop;
    },
  };
}
