import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { TroupeError } from '../../../core/errors.js';
import type { EventBus, RunSignal, Subscription } from '../../../core/ports/event-bus.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import { redactUrl } from '../../../core/redact-url.js';

/*
 * Design: one Redis Stream per run for events, one pub/sub channel for signals.
 *
 * Events. `publish` appends the event JSON to `{prefix}run:{id}:events` with XADD (MAXLEN ~ bounded) and
 * refreshes the key's TTL in the same MULTI. Live subscribers of this process are served by ONE blocking
 * `XREAD` loop on a dedicated connection, over the streams of every run someone here listens to, fanning
 * each entry out to that run's listeners. Why streams plus XREAD rather than pub/sub for events:
 * - gapless from the moment `subscribe` resolves without waiting for the loop: `subscribe` records the
 *   stream's last entry id (XREVRANGE … COUNT 1) and the loop reads strictly after it, so an event
 *   published after `subscribe` resolved is read even if the loop has not yet added the stream;
 * - resumable: the loop keeps a cursor (the last entry id) per stream; after a dropped connection it
 *   continues from there, where pub/sub would silently lose whatever was published in between;
 * - ordered per run, as the stream is.
 * The database stays the source of truth (readers catch up from storage); the stream only needs to hold
 * the recent tail, hence MAXLEN and the TTL. When the set of streams changes while the loop is blocked,
 * the loop is woken with CLIENT UNBLOCK from the command connection (the BLOCK timeout is the fallback).
 *
 * Signals (`cancel`, `steer`, `resume`) are PUBLISHed on `{prefix}signals`: every process subscribes, and
 * a signal is only useful to whoever runs the run right now, so pub/sub's fire-and-forget delivery fits
 * (the durable path is the run row, which the executor re-reads on every lease renewal).
 *
 * Limits: a single Redis (or a primary with replicas / Sentinel). XREAD over several keys needs them in
 * one hash slot, so Redis Cluster is not supported.
 */

export interface RedisEventBusOptions {
  /** `redis://[:password@]host:port[/db]` or `rediss://…`. */
  url: string;
  /** Prefix of every key and channel; default `troupe:`. */
  keyPrefix?: string;
  /** Approximate entries kept per run stream (XADD MAXLEN ~); default 10 000. */
  maxLenPerRun?: number;
  /** Seconds a run's stream lives after its last event; default one day. */
  ttlSeconds?: number;
  /** How long one XREAD blocks; default 5 s. Only matters when a wake-up (CLIENT UNBLOCK) is lost. */
  blockMs?: number;
  /**
   * Told about listener failures, undecodable entries and connection errors. The bus swallows them: one
   * broken subscriber must not stop delivery to the others or fail the publisher.
   */
  onError?: (error: unknown) => void;
  /** Extra ioredis options (TLS, timeouts). */
  redisOptions?: RedisOptions;
}

const DEFAULT_KEY_PREFIX = 'troupe:';
const DEFAULT_MAX_LEN = 10_000;
const DEFAULT_TTL_SECONDS = 24 * 60 * 60;
const DEFAULT_BLOCK_MS = 5_000;
const READ_COUNT = 500;
const CONNECT_TIMEOUT_MS = 10_000;
const ENTRY_FIELD = 'event';
const RETRY_DELAY_MS = 200;

interface Entry<TMessage> {
  listener: (message: TMessage) => void;
  active: boolean;
  /** Stream id this listener's delivery starts after (events); unused for signals. */
  after: string;
}

interface RunStream {
  key: string;
  /** Id of the last entry the loop read from this stream; the next XREAD starts after it. */
  cursor: string;
  listeners: Set<Entry<RunEvent>>;
}

type StreamEntry = [id: string, fields: string[]];
type XreadReply = [key: string, entries: StreamEntry[]][] | null;

/** Stream ids are `ms-seq`; compares them numerically. */
export function compareStreamIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs === bMs ? aSeq - bSeq : aMs - bMs;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isRunSignal(value: unknown): value is RunSignal {
  if (typeof value !== 'object' || value === null) return false;
  const { type, run_id: runId, message } = value as Record<string, unknown>;
  if (typeof runId !== 'string') return false;
  if (type === 'steer') return typeof message === 'string';
  return type === 'cancel' || type === 'resume';
}

function isRunEvent(value: unknown): value is RunEvent {
  if (typeof value !== 'object' || value === null) return false;
  const { run_id: runId, seq, type } = value as Record<string, unknown>;
  return typeof runId === 'string' && typeof seq === 'number' && typeof type === 'string';
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The scale-out bus; resolves once Redis answered, so a wrong URL fails at start-up. */
export async function createRedisEventBus(options: RedisEventBusOptions): Promise<EventBus> {
  const prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const maxLen = options.maxLenPerRun ?? DEFAULT_MAX_LEN;
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  const blockMs = options.blockMs ?? DEFAULT_BLOCK_MS;
  const signalChannel = `${prefix}signals`;
  const streamKey = (runId: string): string => `${prefix}run:${runId}:events`;

  function report(error: unknown): void {
    try {
      options.onError?.(error);
    } catch {
      // The reporter is the last resort; there is nowhere left to send its own failure.
    }
  }

  // Commands fail fast while Redis is away (publishing is best effort; readers recover from storage);
  // the reader and the subscriber wait and resume instead.
  const command = new Redis(options.url, { maxRetriesPerRequest: 2, ...options.redisOptions });
  const reader = new Redis(options.url, { maxRetriesPerRequest: null, ...options.redisOptions });
  const subscriber = new Redis(options.url, { maxRetriesPerRequest: null, ...options.redisOptions });
  const connections = [command, reader, subscriber];
  for (const connection of connections) connection.on('error', report);

  try {
    await withTimeout(
      Promise.all(connections.map((connection) => connection.ping())),
      CONNECT_TIMEOUT_MS,
      'Connecting to Redis',
    );
  } catch (error) {
    for (const connection of connections) connection.disconnect();
    throw new TroupeError(
      'config_invalid',
      `Cannot reach Redis at ${redactUrl(options.url, 'Redis URL')}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }

  const runs = new Map<string, RunStream>();
  const signalListeners = new Set<Entry<RunSignal>>();
  let signalsSubscribed: Promise<unknown> | undefined;
  let closed = false;

  // --- the XREAD loop --------------------------------------------------------------------------------
  /** Bumped whenever a stream joins the read set; the loop notes which generation its XREAD covers. */
  let generation = 0;
  let blockedGeneration = -1;
  let blocking = false;
  let readerClientId: number | undefined;
  let wakeIdle: (() => void) | undefined;
  reader.on('close', () => (readerClientId = undefined));

  function deliver(stream: RunStream, id: string, fields: string[]): void {
    let event: unknown;
    try {
      const index = fields.indexOf(ENTRY_FIELD);
      event = JSON.parse(index >= 0 ? (fields[index + 1] ?? '') : '');
    } catch (error) {
      report(new Error(`Undecodable entry ${id} in ${stream.key}`, { cause: error }));
      return;
    }
    if (!isRunEvent(event)) {
      report(new Error(`Entry ${id} in ${stream.key} is not a run event`));
      return;
    }
    // Snapshot: a listener added while delivering starts with the next entry anyway (its `after`).
    for (const entry of [...stream.listeners]) {
      if (!entry.active || compareStreamIds(id, entry.after) <= 0) continue;
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
      let reply: XreadReply;
      try {
        readerClientId ??= Number(await reader.client('ID'));
        // Snapshot and generation in the same tick as the XREAD is sent, so no stream slips in between.
        streams = [...runs.values()];
        if (streams.length === 0) continue;
        blockedGeneration = generation;
        blocking = true;
        reply = await reader.xread(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          blockMs,
          'STREAMS',
          ...streams.map((stream) => stream.key),
          ...streams.map((stream) => stream.cursor),
        );
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
          deliver(stream, id, fields);
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
      if (blocking && readerClientId !== undefined) {
        try {
          if (Number(await command.client('UNBLOCK', readerClientId)) === 1) return;
        } catch (error) {
          report(error);
          return;
        }
      }
      await delay(2 * (attempt + 1));
    }
  }

  const loop = readLoop();

  // --- signals ---------------------------------------------------------------------------------------
  subscriber.on('message', (channel: string, message: string) => {
    if (channel !== signalChannel) return;
    let signal: unknown;
    try {
      signal = JSON.parse(message);
    } catch (error) {
      report(new Error('Undecodable run signal', { cause: error }));
      return;
    }
    if (!isRunSignal(signal)) {
      report(new Error(`Not a run signal: ${message.slice(0, 200)}`));
      return;
    }
    for (const entry of [...signalListeners]) {
      if (!entry.active) continue;
      try {
        entry.listener(signal);
      } catch (error) {
        report(error);
      }
    }
  });

  function rejectClosed(): Promise<never> {
    // A subscription on a closed bus would never fire: fail loudly instead of letting a waiter hang.
    return Promise.reject(new TroupeError('internal', 'The event bus is closed'));
  }

  return {
    async publish(event) {
      if (closed) return;
      const results = await command
        .multi()
        .xadd(streamKey(event.run_id), 'MAXLEN', '~', maxLen, '*', ENTRY_FIELD, JSON.stringify(event))
        .expire(streamKey(event.run_id), ttlSeconds)
        .exec();
      const failed = results?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
    },

    async subscribe(runId, listener) {
      if (closed) return rejectClosed();
      const key = streamKey(runId);
      // Everything after the stream's current tail is ours; an absent stream starts at the beginning.
      const tail = (await command.xrevrange(key, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
      if (closed) return rejectClosed();
      const entry: Entry<RunEvent> = { listener, active: true, after: tail };
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

    async signal(signal) {
      if (closed) return;
      await command.publish(signalChannel, JSON.stringify(signal));
    },

    async subscribeSignals(listener) {
      if (closed) return rejectClosed();
      // Resolves once Redis confirmed the SUBSCRIBE, so the subscription is live when this resolves.
      signalsSubscribed ??= subscriber.subscribe(signalChannel);
      try {
        await signalsSubscribed;
      } catch (error) {
        signalsSubscribed = undefined;
        throw error;
      }
      if (closed) return rejectClosed();
      const entry: Entry<RunSignal> = { listener, active: true, after: '' };
      signalListeners.add(entry);
      return {
        unsubscribe() {
          entry.active = false;
          signalListeners.delete(entry);
          return Promise.resolve();
        },
      };
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const stream of runs.values()) for (const entry of stream.listeners) entry.active = false;
      for (const entry of signalListeners) entry.active = false;
      runs.clear();
      signalListeners.clear();
      wakeIdle?.();
      // disconnect() also aborts the blocked XREAD, which ends the loop.
      reader.disconnect();
      await loop;
      await Promise.all(
        [command, subscriber].map((connection) => connection.quit().catch(() => connection.disconnect())),
      );
    },
  };
}
