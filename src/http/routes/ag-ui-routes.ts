import { streamSSE } from 'hono/streaming';
import { EventType } from '@ag-ui/core';
import { agUiRunStream } from '../../runtime/ag-ui/ag-ui-run-stream.js';
import { lastUserText, runAgentInputSchema } from '../ag-ui/run-agent-input.js';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { Logger } from '../logger.js';
import type { RouteRegistry } from '../route-registry.js';
import { AG_UI_EVENT_SCHEMA } from '../response-schemas/ag-ui-event.js';
import { DEFAULT_SSE_HEARTBEAT_MS } from './run-event-stream-response.js';

/**
 * AG-UI (docs/interoperability.md, README "AG-UI"): `POST /ag-ui/{slug}` takes a `RunAgentInput` and streams the Troupe
 * run it starts (or resumes) as AG-UI 1.0 events over SSE, `data: <event JSON>` frames. Same bearer
 * tokens and throttle as the API. Closing the connection before the run finished or stopped for a human
 * cancels it, as with the OpenAI-compatible API.
 */
export function registerAgUiRoutes(registry: RouteRegistry, deps: AppDependencies, logger: Logger): void {
  registry.add({
    method: 'post',
    path: '/ag-ui/{id}',
    summary: 'AG-UI: run a chat agent and stream AG-UI 1.0 events',
    description:
      "The body is an AG-UI RunAgentInput: its last message (the user's) starts a run in the thread's " +
      'conversation; `resume` entries answer the interrupts (approvals, questions) the previous run stopped on.',
    tag: 'ag-ui',
    access: 'user',
    params: idParamsSchema,
    body: runAgentInputSchema,
    produces: 'text/event-stream',
    eventSchema: AG_UI_EVENT_SCHEMA,
    errors: ['run_busy', 'run_not_waiting', 'conversation_archived'],
    handler: async ({ c, actor, params, body }) => {
      const started = await deps.agUi.start(actor, params.id, {
        threadId: body.threadId,
        runId: body.runId,
        text: body.resume?.length ? undefined : lastUserText(body),
        resume: body.resume ?? [],
      });
      const controller = new AbortController();
      c.header('X-Accel-Buffering', 'no');
      c.header('Cache-Control', 'no-cache');
      return streamSSE(c, async (stream) => {
        stream.onAbort(() => controller.abort());
        const heartbeat = setInterval(
          () => void stream.write(': heartbeat\n\n'),
          deps.sseHeartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS,
        );
        let settled = false;
        try {
          for await (const event of agUiRunStream({
            actor,
            storage: deps.storage,
            runs: deps.runs,
            run: started.run,
            afterSeq: started.afterSeq,
            threadId: body.threadId,
            runId: body.runId,
            state: body.state,
            signal: controller.signal,
            onError: (error) =>
              logger.error('ag-ui stream failed', {
                run_id: started.run.id,
                error: error instanceof Error ? (error.stack ?? error.message) : String(error),
              }),
          })) {
            await stream.writeSSE({ data: JSON.stringify(event) });
            if (event.type === EventType.RUN_FINISHED || event.type === EventType.RUN_ERROR) settled = true;
          }
        } finally {
          clearInterval(heartbeat);
          // A client that left before the end gets no answer: the run stops instead of running on.
          if (!settled && controller.signal.aborted) {
            await deps.runs.cancel(actor, started.run.id).catch((error: unknown) =>
              logger.warn('could not cancel the run of an abandoned AG-UI stream', {
                run_id: started.run.id,
                error: error instanceof Error ? error.message : String(error),
              }),
            );
          }
        }
      });
    },
  });
}
