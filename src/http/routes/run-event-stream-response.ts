import { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { toTroupeError, TroupeError } from '../../core/errors.js';
import type { Actor } from '../../core/records/user.js';
import type { RunServiceApi } from '../../runtime/runs/run-service-api.js';
import type { RunEventStream } from '../../runtime/events/stream-run-events.js';
import type { AppEnv } from '../app-env.js';
import type { Logger } from '../logger.js';
import { openNodeSseSink } from './node-sse-sink.js';
import { SSE_HEARTBEAT, sseFrameBytes, sseUntrackedFrame } from './sse-frame-bytes.js';
import type { SseSink } from './sse-sink.js';
import { openWebSseSink } from './web-sse-sink.js';

export const DEFAULT_SSE_HEARTBEAT_MS = 15_000;

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

/** The Node response @hono/node-server hands the app in `c.env`; absent under `app.request` and elsewhere. */
function nodeResponseOf(c: Context<AppEnv>): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? (outgoing as ServerResponse) : undefined;
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

  const headers: Record<string, string> = {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    // Without this, nginx buffers the stream and the client sees nothing until the run ends.
    'X-Accel-Buffering': 'no',
  };
  // On Node the frames go straight to the socket from the publish that produced them; a web stream would
  // put several promise hops (each queued behind every other run's work) between a publish and the wire.
  const outgoing = nodeResponseOf(c);
  let sink: SseSink;
  let response: Response;
  if (outgoing) {
    sink = openNodeSseSink(outgoing, headers, abort);
    response = RESPONSE_ALREADY_SENT;
  } else {
    const web = openWebSseSink(abort);
    sink = web.sink;
    response = new Response(web.body, { headers: { ...headers, 'Transfer-Encoding': 'chunked' } });
  }
  void pump(events, sink, { runId, logger, heartbeatMs, signal: controller.signal }).finally(() => {
    requestSignal.removeEventListener('abort', abort);
    controller.abort();
  });
  return response;
}

/** Sends every event of the stream as a frame until `end` (then closes) or until the client goes away. */
async function pump(
  events: RunEventStream,
  sink: SseSink,
  options: { runId: string; logger: Logger; heartbeatMs: number; signal: AbortSignal },
): Promise<void> {
  const { runId, logger, signal } = options;
  const heartbeat = setInterval(() => sink.write(SSE_HEARTBEAT), options.heartbeatMs);
  try {
    await events.forEach({ event: (event) => sink.write(sseFrameBytes(event)), ready: () => sink.ready() });
  } catch (thrown) {
    if (!signal.aborted) {
      const error = toTroupeError(thrown);
      logger.warn('run event stream failed', { run_id: runId, code: error.code, error: error.message });
      // No id: the client reconnects with the last real seq it saw and loses nothing.
      const message =
        error.code === 'internal' ? 'Event stream interrupted; reconnect to resume' : error.message;
      sink.write(
        sseUntrackedFrame('error', { run_id: runId, type: 'error', payload: { code: error.code, message } }),
      );
    }
  } finally {
    clearInterval(heartbeat);
    sink.end();
  }
}
