import { describe, expect, it } from 'vitest';
import type { ApiClient } from './api-client.ts';
import { backoffDelay, openRunEventStream, type StreamState } from './run-event-stream.ts';
import type { RunEvent, RunEventType } from './types.ts';
import { looseRunEvent } from '../lib/loose-run-event.ts';

function event(
  seq: number,
  type: RunEventType = 'message_delta',
  payload: Record<string, unknown> = { text: `t${seq}` },
): RunEvent {
  return looseRunEvent(type, payload, { seq });
}

function frame(item: RunEvent): string {
  return `event: ${item.type}\ndata: ${JSON.stringify(item)}\nid: ${item.seq}\n\n`;
}

function sseResponse(chunks: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

interface Call {
  path: string;
  lastEventId: string | null;
}

/** A client whose `raw` answers each connection from a script and records the resume header. */
function scriptedClient(
  responses: (() => Response)[],
  calls: Call[],
  onUnauthorized: () => void = () => undefined,
): ApiClient {
  let index = 0;
  return {
    baseUrl: '',
    token: () => 'trp_x',
    unauthorized: onUnauthorized,
    request: () => Promise.reject(new Error('not used')),
    prefetched: () => undefined,
    raw(path, init) {
      const headers = new Headers(init?.headers);
      calls.push({ path, lastEventId: headers.get('last-event-id') });
      const next = responses[index];
      index += 1;
      if (!next) return Promise.reject(new TypeError('network down'));
      const response = next();
      if (response.status === 401) onUnauthorized();
      return Promise.resolve(response);
    },
  };
}

const noSleep = (): Promise<void> => Promise.resolve();

describe('openRunEventStream', () => {
  it('delivers events in order and stops after end', async () => {
    const calls: Call[] = [];
    const seen: number[] = [];
    const handle = openRunEventStream({
      client: scriptedClient(
        [
          () =>
            sseResponse([
              frame(event(1, 'metadata')),
              frame(event(2)),
              frame(event(3, 'end', { status: 'completed' })),
            ]),
        ],
        calls,
      ),
      runId: 'run_1',
      onEvent: (item) => seen.push(item.seq),
      sleep: noSleep,
    });
    expect(await handle.done).toBe('ended');
    expect(seen).toEqual([1, 2, 3]);
    expect(calls).toEqual([{ path: '/api/agent/runs/run_1/events', lastEventId: null }]);
  });

  it('reconnects after a dropped connection with Last-Event-ID = the last seq, and drops overlapping events', async () => {
    const calls: Call[] = [];
    const seen: number[] = [];
    const handle = openRunEventStream({
      client: scriptedClient(
        [
          // Cut mid-frame after seq 2.
          () =>
            sseResponse([frame(event(1, 'metadata')), frame(event(2)), 'event: message_delta\ndata: {"se']),
          // The server replays from an earlier point than asked: nothing is delivered twice.
          () =>
            sseResponse([frame(event(2)), frame(event(3)), frame(event(4, 'end', { status: 'completed' }))]),
        ],
        calls,
      ),
      runId: 'run_1',
      onEvent: (item) => seen.push(item.seq),
      sleep: noSleep,
    });
    expect(await handle.done).toBe('ended');
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(calls.map((call) => call.lastEventId)).toEqual([null, '2']);
  });

  it('stops on 204 (the server says the resume point is at or past end) instead of reconnecting', async () => {
    const calls: Call[] = [];
    const states: StreamState[] = [];
    const handle = openRunEventStream({
      client: scriptedClient([() => new Response(null, { status: 204 })], calls),
      runId: 'run_1',
      afterSeq: 8,
      onEvent: () => undefined,
      onState: (state) => states.push(state),
      sleep: noSleep,
    });
    expect(await handle.done).toBe('ended');
    expect(calls).toHaveLength(1);
    expect(states.at(-1)).toBe('ended');
  });

  it('resumes from afterSeq on the first connection (a reloaded page)', async () => {
    const calls: Call[] = [];
    const handle = openRunEventStream({
      client: scriptedClient([() => sseResponse([frame(event(8, 'end', { status: 'completed' }))])], calls),
      runId: 'run_1',
      afterSeq: 7,
      onEvent: () => undefined,
      sleep: noSleep,
    });
    await handle.done;
    expect(calls[0]?.lastEventId).toBe('7');
    expect(handle.lastSeq()).toBe(8);
  });

  it('treats an error frame without id as a stream failure and reconnects, with backoff after failures', async () => {
    const calls: Call[] = [];
    const sleeps: number[] = [];
    const handle = openRunEventStream({
      client: scriptedClient(
        [
          () =>
            sseResponse([
              frame(event(1)),
              'event: error\ndata: {"type":"error","payload":{"code":"internal"}}\n\n',
            ]),
          () =>
            new Response(JSON.stringify({ error: { code: 'internal', message: 'boom' } }), { status: 503 }),
          () => sseResponse([frame(event(2, 'end', { status: 'completed' }))]),
        ],
        calls,
      ),
      runId: 'run_1',
      onEvent: () => undefined,
      backoff: { initialMs: 100, maxMs: 1000 },
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
    });
    expect(await handle.done).toBe('ended');
    expect(calls.map((call) => call.lastEventId)).toEqual([null, '1', '1']);
    expect(sleeps).toHaveLength(2);
    // The second wait follows a failed attempt, so it may be longer than the first (which followed progress).
    expect(sleeps[0]).toBeLessThanOrEqual(100);
    expect(sleeps[1]).toBeGreaterThanOrEqual(100);
  });

  it('stops on 401 (the client has sent the user to the login page) and on a refusal retrying cannot fix', async () => {
    let unauthorized = 0;
    const states: StreamState[] = [];
    const denied = openRunEventStream({
      client: scriptedClient([() => new Response('{}', { status: 401 })], [], () => (unauthorized += 1)),
      runId: 'run_1',
      onEvent: () => undefined,
      onState: (state) => states.push(state),
      sleep: noSleep,
    });
    expect(await denied.done).toBe('unauthorized');
    expect(unauthorized).toBe(1);
    expect(states.at(-1)).toBe('failed');

    const fatal: string[] = [];
    const missing = openRunEventStream({
      client: scriptedClient(
        [
          () =>
            new Response(JSON.stringify({ error: { code: 'run_not_found', message: 'no' } }), {
              status: 404,
            }),
        ],
        [],
      ),
      runId: 'nope',
      onEvent: () => undefined,
      onFatal: (error) => fatal.push(error.code),
      sleep: noSleep,
    });
    expect(await missing.done).toBe('failed');
    expect(fatal).toEqual(['run_not_found']);
  });

  it('close() stops a stream that is waiting to reconnect', async () => {
    const handle = openRunEventStream({
      client: scriptedClient([], []),
      runId: 'run_1',
      onEvent: () => undefined,
      sleep: (_ms, signal) =>
        new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    handle.close();
    expect(await handle.done).toBe('closed');
  });
});

describe('backoffDelay', () => {
  it('doubles per attempt, is capped, and jitters within [half, full]', () => {
    const options = { initialMs: 500, maxMs: 10_000 };
    expect(backoffDelay(1, options, () => 1)).toBe(500);
    expect(backoffDelay(1, options, () => 0)).toBe(250);
    expect(backoffDelay(3, options, () => 1)).toBe(2000);
    expect(backoffDelay(20, options, () => 1)).toBe(10_000);
  });
});
