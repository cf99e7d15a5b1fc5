import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { TroupeError } from '../../../core/errors.js';
import type { EventBus } from '../../../core/ports/event-bus.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import type { Run } from '../../../core/records/run.js';
import { redactUrl } from '../../../core/redact-url.js';
import { createRedisSubscriber } from '../../redis/create-redis-subscriber.js';
import { endRedisConnection } from '../../redis/end-redis-connection.js';
import { createRedisSignalChannel } from './create-redis-signal-channel.js';
import { createRedisStreamReader, STREAM_ENTRY_FIELD } from './create-redis-stream-reader.js';
import { createRedisHealth } from './redis-health.js';

/*
 * Design: one Redis Stream per run for events, one pub/sub channel for signals.
 *
 * Events. `publish` appends the event JSON to `{prefix}run:{id}:events` with XADD (MAXLEN ~ bounded) and
 * refreshes the key's TTL when this process has not refreshed it for a quarter of the TTL (one command per
 * event instead of four: MULTI, XADD, EXPIRE, EXEC; nothing needs the two to be atomic). One XREAD loop per process serves the live subscribers (see
 * create-redis-stream-reader.ts for why streams rather than pub/sub). The database stays the source of
 * truth (readers catch up from storage); the stream only needs to hold the recent tail, hence MAXLEN and
 * the TTL. An `end` is also appended to `{prefix}run:{id}:end`, in the same pipeline, and read by a second XREAD
 * loop: a waiter for ends (an awaited run, a parent awaiting its children) reads one entry per run there,
 * instead of every event of the run (`subscribeEnds`).
 *
 * Signals (`cancel`, `steer`, `resume`) are PUBLISHed on `{prefix}signals` (create-redis-signal-channel.ts).
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
  /**
   * Seconds a run's stream lives after its last event; default one day. The TTL is refreshed at most every
   * quarter of it, so a stream lives between ¾ of it and all of it after its last event.
   */
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
  /**
   * The row an `end` committed, carried with it on the end stream: `read` gives the row the publishing process
   * attached to its event, `attach` hands it to the receiving process's copy, so a waiter there learns how the
   * run ended without reading it (the run service's `endedRunOf`/`attachEndedRun`).
   */
  endedRuns?: {
    read: (event: RunEvent) => Run | undefined;
    attach: (event: RunEvent, run: Run) => void;
  };
}

const DEFAULT_KEY_PREFIX = 'troupe:';
const DEFAULT_MAX_LEN = 10_000;
/**
 * A run's end stream holds its one end (a terminal status has no way out: run-state-machine.ts); the cap only
 * bounds a stream written to by something else.
 */
const END_MAX_LEN = 16;
const DEFAULT_TTL_SECONDS = 24 * 60 * 60;
const DEFAULT_BLOCK_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;
const MAX_TRACKED_STREAMS = 100_000;

/** The field of an end stream entry that carries the row its `end` committed. */
const ENDED_RUN_FIELD = 'run';

/**
 * Hands `event` the row its entry carries, when it carries that run's row. An entry without one, or with one
 * that does not decode, is a bare end: its waiter reads the run.
 */
function attachCarriedRun(
  event: RunEvent,
  fields: string[],
  attach: (event: RunEvent, run: Run) => void,
): void {
  const index = fields.indexOf(ENDED_RUN_FIELD);
  if (index < 0 || event.type !== 'end') return;
  let row: Partial<Run> | null;
  try {
    row = JSON.parse(fields[index + 1] ?? 'null') as Partial<Run> | null;
  } catch {
    return;
  }
  if (row?.id === event.run_id && typeof row.status === 'string') attach(event, row as Run);
}

function nextImmediate(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
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
  // A run's `end` events a second time, for waiters that need nothing else (`subscribeEnds`).
  const endKey = (runId: string): string => `${prefix}run:${runId}:end`;

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
  // Named, so a reader's loop can find its connection's client id again after a reconnect.
  const readerOptions = (kind: string): RedisOptions => ({
    maxRetriesPerRequest: null,
    ...options.redisOptions,
    connectionName: `troupe-${kind}-reader-${randomUUID()}`,
  });
  const reader = new Redis(options.url, readerOptions('events'));
  const endReader = new Redis(options.url, readerOptions('ends'));
  const subscriber = createRedisSubscriber(options.url, options.redisOptions, report);
  const connections = [command, reader, endReader, subscriber.connection];
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

  const health = createRedisHealth(connections, report);
  const streams = createRedisStreamReader({ command, reader, streamKey, blockMs, report });
  const { endedRuns } = options;
  const ends = createRedisStreamReader({
    command,
    reader: endReader,
    streamKey: endKey,
    blockMs,
    report,
    // A waiter wants a run's end whenever it was published; reading from the start saves the XREVRANGE.
    fromStart: true,
    ...(endedRuns ? { onEntry: (event, fields) => attachCarriedRun(event, fields, endedRuns.attach) } : {}),
  });
  const signals = createRedisSignalChannel({ command, subscriber, channel: signalChannel, report });
  let closed = false;
  // When this process last set each stream's TTL. Forgotten when Redis reconnects (a restart may have lost the
  // keys, and a key XADD recreates has no TTL) and when it grows past a bound (a refresh too many costs nothing).
  const ttlSetAt = new Map<string, number>();
  const refreshEveryMs = (ttlSeconds * 1000) / 4;
  command.on('ready', () => ttlSetAt.clear());

  /**
   * Every event in one pipeline (one round trip however many events a step appended), each XADD with the TTL
   * refresh its stream is due for. While Redis is away a publish is dropped at once instead of waiting for the
   * retries to fail: the events are in storage, and readers read storage until the bus is back
   * (docs/scale-out.md, "Outages").
   */
  async function publishAll(events: readonly RunEvent[]): Promise<void> {
    if (closed || events.length === 0) return;
    // This process's own waiters hear its ends at once, before Redis answers and whether or not it is up (an
    // event is published once it is committed), as the very objects this process committed, with whatever it
    // attached to them (the row, `endedRuns`).
    for (const event of events) if (event.type === 'end') ends.deliverPublished(event);
    // Redis hears them once what those waiters start in this turn has started: a parent that heard its child's
    // end sends its next statement before this process encodes and writes the child's events (publishes leave
    // in the order they were made: immediates run first in, first out).
    await nextImmediate();
    // A publish made before `close` still leaves: `close` lets it write first.
    if (!health.connected) return;
    const entries = events.map((event) => JSON.stringify(event));
    // Each end as its end stream's entry holds it.
    const endFields = events.map((event, index) => {
      if (event.type !== 'end') return undefined;
      const row = endedRuns?.read(event);
      const fields = [STREAM_ENTRY_FIELD, entries[index] as string];
      return row ? [...fields, ENDED_RUN_FIELD, JSON.stringify(row)] : fields;
    });
    const now = Date.now();
    const refreshed: string[] = [];
    const commands = command.pipeline();
    events.forEach((event, index) => {
      const key = streamKey(event.run_id);
      commands.xadd(key, 'MAXLEN', '~', maxLen, '*', STREAM_ENTRY_FIELD, entries[index] as string);
      // Written once in a run's life, so its TTL goes with it.
      const fields = endFields[index];
      if (fields) {
        const ended = endKey(event.run_id);
        commands.xadd(ended, 'MAXLEN', '~', END_MAX_LEN, '*', ...fields);
        commands.expire(ended, ttlSeconds);
      }
      const setAt = ttlSetAt.get(key);
      if (setAt !== undefined && now - setAt < refreshEveryMs) return;
      if (ttlSetAt.size >= MAX_TRACKED_STREAMS) ttlSetAt.clear();
      ttlSetAt.set(key, now);
      refreshed.push(key);
      commands.expire(key, ttlSeconds);
    });
    const failed = (await commands.exec())?.find(([error]) => error !== null)?.[0];
    if (failed) {
      for (const key of refreshed) ttlSetAt.delete(key);
      throw failed;
    }
  }

  return {
    health,
    // While Redis is away a publish is dropped at once instead of waiting for the retries to fail: the event
    // is in storage, and readers read storage until the bus is back (docs/scale-out.md, "Outages").
    publish: (event) => publishAll([event]),
    publishMany: (events) => publishAll(events),
    subscribe: (runId, listener) => streams.subscribe(runId, listener),
    subscribeEnds: (runId, listener) => ends.subscribe(runId, listener),
    // A lost signal is covered by the run row, which the worker reads at its next lease renewal.
    signal: (signal) => (health.connected ? signals.signal(signal) : Promise.resolve()),
    subscribeSignals: (listener) => signals.subscribeSignals(listener),

    async close() {
      if (closed) return;
      closed = true;
      // Publishes made before this call wait one immediate before they write (publishAll): they leave first.
      await nextImmediate();
      health.close();
      signals.close();
      await Promise.all([streams.close(), ends.close()]);
      await Promise.all([endRedisConnection(command), subscriber.close()]);
    },
  };
}
