import type { ApiClient } from './api-client.ts';
import { errorFromResponse } from './api-client.ts';
import type { ApiError } from './api-error.ts';
import { SseParser } from './sse-parser.ts';
import type { RunEvent } from './types.ts';

export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'ended' | 'closed' | 'failed';

/** Why the stream stopped for good. */
export type StreamOutcome = 'ended' | 'closed' | 'failed' | 'unauthorized';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

export interface RunStreamOptions {
  client: ApiClient;
  runId: string;
  /** Resume after this seq (sent as `Last-Event-ID`); 0 or unset replays from the first event. */
  afterSeq?: number;
  onEvent: (event: RunEvent) => void;
  onState?: (state: StreamState) => void;
  /** A refusal that retrying cannot fix (unknown or foreign run, bad cursor): the stream stops. */
  onFatal?: (error: ApiError) => void;
  backoff?: BackoffOptions;
  /** Injected in tests; resolves after `ms` unless `signal` aborts first. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface RunStreamHandle {
  close: () => void;
  /** Resolves when the stream stops for good. */
  done: Promise<StreamOutcome>;
  lastSeq: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 10_000 };

/** Delay before reconnect attempt `attempt` (1-based): doubling from `initialMs`, capped, never below half. */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(options.maxMs, options.initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function parseRunEvent(data: string): RunEvent | undefined {
  try {
    const parsed = JSON.parse(data) as Partial<RunEvent>;
    if (typeof parsed.seq !== 'number' || typeof parsed.type !== 'string') return undefined;
    return { payload: {}, ...parsed } as RunEvent;
  } catch {
    return undefined;
  }
}

/**
 * Streams `GET /api/agent/runs/{id}/events` with `fetch` (EventSource cannot send the Authorization header).
 * Resumes with `Last-Event-ID` = the last seq it delivered, after a dropped connection or a server-side
 * stream error (an `error` frame without an id), with exponential backoff; never delivers a seq twice or
 * out of order. Stops after `end`, on a 204 (resumed at or past `end`), on `close()`, on a 401 (the client's `onUnauthorized` already ran) and on
 * a 4xx that retrying cannot fix.
 */
export function openRunEventStream(options: RunStreamOptions): RunStreamHandle {
  const controller = new AbortController();
  const { signal } = controller;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const sleep = options.sleep ?? defaultSleep;
  let lastSeq = Math.max(0, options.afterSeq ?? 0);
  const setState = (state: StreamState): void => options.onState?.(state);

  /** Reads one connection; true when `end` arrived. */
  async function readOnce(response: Response): Promise<boolean> {
    if (!response.body) return false;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return false;
        for (const frame of parser.push(decoder.decode(value, { stream: true }))) {
          // The server's own stream failure (no id): reconnect from the last seq, nothing is lost.
          if (frame.event === 'error' && frame.id === undefined) return false;
          const event = parseRunEvent(frame.data);
          if (event === undefined || event.seq <= lastSeq) continue;
          lastSeq = event.seq;
          options.onEvent(event);
          if (event.type === 'end') return true;
        }
      }
    } finally {
      reader.releaseLock();
      // Closing our side stops the server's iteration when we leave early.
      void response.body.cancel().catch(() => undefined);
    }
  }

  async function run(): Promise<StreamOutcome> {
    let attempt = 0;
    while (!signal.aborted) {
      setState(attempt === 0 ? 'connecting' : 'reconnecting');
      const seqBefore = lastSeq;
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (lastSeq > 0) headers['last-event-id'] = String(lastSeq);
        const response = await options.client.raw(
          `/api/agent/runs/${encodeURIComponent(options.runId)}/events`,
          {
            headers,
            signal,
          },
        );
        if (response.status === 401) {
          setState('failed');
          return 'unauthorized';
        }
        // The server says we resumed at or past `end`: nothing more will come, so stop (as an EventSource does).
        if (response.status === 204) {
          setState('ended');
          return 'ended';
        }
        if (!response.ok) {
          const error = await errorFromResponse(response);
          // 408/429 and 5xx are worth retrying; any other 4xx will answer the same again.
          if (response.status < 500 && response.status !== 408 && response.status !== 429) {
            setState('failed');
            options.onFatal?.(error);
            return 'failed';
          }
        } else {
          setState('open');
          if (await readOnce(response)) {
            setState('ended');
            return 'ended';
          }
        }
      } catch {
        // Network failure or abort: retried below unless closed.
      }
      if (signal.aborted) break;
      // Progress on this connection means the server is healthy: start the backoff over.
      attempt = lastSeq > seqBefore ? 1 : attempt + 1;
      setState('reconnecting');
      await sleep(backoffDelay(attempt, backoff), signal);
    }
    setState('closed');
    return 'closed';
  }

  const done = run();
  return {
    close: () => controller.abort(),
    done,
    lastSeq: () => lastSeq,
  };
}
