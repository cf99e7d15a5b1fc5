import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { toTroupeError, TroupeError } from '../../core/errors.js';
import type { RunEvent } from '../../core/records/run-event.js';
import type { Actor } from '../../core/records/user.js';
import type { RunServiceApi } from '../../runtime/run-service-api.js';
import type { RunEventStream } from '../../runtime/stream-run-events.js';
import type { AppEnv } from '../app-env.js';
import type { Logger } from '../logger.js';

export const DEFAULT_SSE_HEARTBEAT_MS = 15_000;

// Both buses hand every listener of a run the same event object, and nothing changes an event once it is
// published: one serialization then serves all of the run's SSE clients instead of one per client.
const serialized = new WeakMap<RunEvent, string>();

function frameData(event: RunEvent): string {
  let data = serialized.get(event);
  if (data === undefined) {
    data = JSON.stringify(event);
    serialized.set(event, data);
  }
  return data;
}

export interface RunEventStreamOptions {
  c: Context<AppEnv>;
  actor: Actor;
  runId: string;
  /** From the `after_seq` query; `Last-Event-ID` wins because that is what a browser sends on reconnect. */
  afterSeq: number | undefined;
  runs: RunServiceApi;
  heartbeatMs: number | undefined;
  logger: Logger;
}

function resumeCursor(lastEventId: string | undefined, afterSeq: number | undefined): number {
  if (lastEventId === undefined || lastEventId.trim() === '') return afterSeq ?? 0;
  const trimmed = lastEventId.trim();
  // We only ever send integer ids, so anything else is a client bug worth surfacing, not a silent replay.
  if (!/^\d{1,15}$/.test(trimmed)) {
    throw new TroupeError('validation_failed', 'Last-Event-ID must be the integer seq of an event', {
      details: {
        issues: [
          { path: 'header.Last-Event-ID', message: 'expected a non-negative integer', code: 'custom' },
        ],
      },
    });
  }
  return Number(trimmed);
}

/**
 * `GET /api/agent/runs/{id}/events`. Visibility is checked before the stream opens, so an unknown or
 * foreign run is a plain JSON 404. Frames are `id: <seq>`, `event: <type>`, `data: <the event as JSON>`;
 * the stream closes after `end`, and a client disconnect aborts the run-service iteration. A resume at or
 * past `end` answers 204 No Content at once.
 */
export async function createRunEventStreamResponse(options: RunEventStreamOptions): Promise<Response> {
  const { c, actor, runId, runs, logger } = options;
  const afterSeq = resumeCursor(c.req.header('Last-Event-ID'), options.afterSeq);
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS;
  const controller = new AbortController();
  const requestSignal = c.req.raw.signal;
  const abort = (): void => controller.abort();
  requestSignal.addEventListener('abort', abort, { once: true });

  let events: RunEventStream;
  try {
    events = await runs.streamEvents(actor, runId, afterSeq, controller.signal);
  } catch (error) {
    requestSignal.removeEventListener('abort', abort);
    controller.abort();
    throw error;
  }
  if (events.ended) {
    // The client has seen `end` already (an EventSource reconnecting after the stream closed): 204 is
    // what makes a standard EventSource stop reconnecting, instead of an open stream of heartbeats.
    requestSignal.removeEventListener('abort', abort);
    controller.abort();
    return c.body(null, 204);
  }

  // Without this, nginx buffers the stream and the client sees nothing until the run ends.
  c.header('X-Accel-Buffering', 'no');
  c.header('Cache-Control', 'no-cache');
  return streamSSE(c, async (stream) => {
    stream.onAbort(abort);
    const heartbeat = setInterval(() => void stream.write(': heartbeat\n\n'), heartbeatMs);
    try {
      for await (const event of events) {
        await stream.writeSSE({ id: String(event.seq), event: event.type, data: frameData(event) });
        if (event.type === 'end' || controller.signal.aborted) break;
      }
    } catch (thrown) {
      if (!controller.signal.aborted) {
        const error = toTroupeError(thrown);
        logger.warn('run event stream failed', { run_id: runId, code: error.code, error: error.message });
        // No id: the client reconnects with the last real seq it saw and loses nothing.
        const message =
          error.code === 'internal' ? 'Event stream interrupted; reconnect to resume' : error.message;
        await stream.writeSSE({
          event: 'error',
          data: JSON.stringify({ run_id: runId, type: 'error', payload: { code: error.code, message } }),
        });
      }
    } finally {
      clearInterval(heartbeat);
      requestSignal.removeEventListener('abort', abort);
      controller.abort();
    }
  });
}
