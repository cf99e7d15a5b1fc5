import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { KNOWN_CONTENT_TYPES } from '../../core/files/content-type-for.js';
import { toTroupeError } from '../../core/errors.js';
import {
  AGENTS_API_TAG,
  idempotencyKeyOf,
  pageQuerySchema,
  sessionEventsBodySchema,
  sessionParamsSchema,
} from '../agents-api/agents-api-requests.js';
import type { AppDependencies } from '../app-dependencies.js';
import { artifactDownloadResponse } from '../artifact-download-response.js';
import { errorStatus } from '../error-status.js';
import type { Logger } from '../logger.js';
import { openAiError } from '../openai/openai-error.js';
import type { RouteRegistry } from '../route-registry.js';
import {
  agentsApiArtifactSchema,
  agentsApiDeleted,
  agentsApiItemSchema,
  agentsApiPage,
  agentsApiSessionEventSchema,
  agentsApiSubagentSchema,
  agentsApiTurnSchema,
} from '../response-schemas/agents-api-records.js';
import { DEFAULT_SSE_HEARTBEAT_MS } from './run-event-stream-response.js';

const id = (what: string) => z.string().min(1).max(200).describe(what);
const turnParams = sessionParamsSchema.extend({ turn_id: id('The turn (run) id') });
const subagentParams = sessionParamsSchema.extend({
  subagent_id: id("The subagent's child conversation id"),
});
const subagentTurnParams = subagentParams.extend({ turn_id: id('The turn (run) id') });
const artifactParams = sessionParamsSchema.extend({ artifact_id: id('The artifact id') });

/** A session's events, turns, items, subagents and artifacts (see `registerAgentsApiRoutes`). */
export function registerAgentsApiSessionRoutes(
  registry: RouteRegistry,
  deps: AppDependencies,
  logger: Logger,
): void {
  const service = deps.agentsApi;
  const tag = AGENTS_API_TAG;
  const turnsPage = agentsApiPage(agentsApiTurnSchema);
  const itemsPage = agentsApiPage(agentsApiItemSchema);

  registry.add({
    method: 'post',
    path: '/v1/agents/sessions/{id}/events',
    status: 204,
    summary: 'Agents API: send input events: a user message, approval results, answers, a cancel',
    description:
      'Applied in order; every event is checked first, so a refused batch changes nothing. A message starts a ' +
      'turn (`409 run_busy` while one runs); with the `Idempotency-Key` header a repeated request starts no ' +
      'second turn and repeats no decision. `mcp_approval_request_result` decides a pending approval ' +
      '(`deny` and `cancel` reject it); `tool_result` answers a pending `ask_user_question` call; `cancel` ' +
      'cancels the running turn and its subagents.',
    tag,
    access: 'user',
    params: sessionParamsSchema,
    body: sessionEventsBodySchema,
    errors: [
      'run_busy',
      'request_id_conflict',
      'approval_decided',
      'question_answered',
      'run_not_waiting',
      'not_supported',
    ],
    handler: async ({ c, actor, params, body }) => {
      await service.postEvents(actor, params.id, body.events, idempotencyKeyOf(c));
      return c.body(null, 204);
    },
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/events',
    summary: "Agents API: the session's live events (server-sent events)",
    description:
      "Starts with the session's status, follows its running turn and every turn started afterwards, and " +
      'stays open (`: heartbeat` comments) until the client leaves.',
    tag,
    access: 'user',
    params: sessionParamsSchema,
    produces: 'text/event-stream',
    eventSchema: agentsApiSessionEventSchema,
    handler: async ({ c, actor, params }) => {
      const controller = new AbortController();
      // Opened before the answer starts: a stranger's id is a 404, and no turn started after this is missed.
      const events = await service.openEvents(actor, params.id, controller.signal);
      c.header('X-Accel-Buffering', 'no');
      c.header('Cache-Control', 'no-cache');
      return streamSSE(c, async (stream) => {
        stream.onAbort(() => controller.abort());
        const heartbeat = setInterval(
          () => void stream.write(': heartbeat\n\n'),
          deps.sseHeartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS,
        );
        try {
          for await (const event of events) {
            await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
          }
        } catch (error) {
          if (!controller.signal.aborted) {
            const failure = toTroupeError(error);
            if (failure.code === 'internal')
              logger.error('agents api session stream failed', { error: failure.message });
            const { error: body } = openAiError(errorStatus(failure.code), failure.code, failure.message);
            await stream.writeSSE({
              event: 'error',
              data: JSON.stringify({
                type: 'error',
                event_id: 'evt_error',
                session_id: params.id,
                error: body,
              }),
            });
          }
        } finally {
          clearInterval(heartbeat);
          controller.abort();
        }
      });
    },
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/turns',
    response: turnsPage,
    summary: "Agents API: the session's turns (the runs of its conversation)",
    tag,
    access: 'user',
    params: sessionParamsSchema,
    query: pageQuerySchema,
    handler: async ({ c, actor, params, query }) => c.json(await service.listTurns(actor, params.id, query)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/turns/{turn_id}',
    response: agentsApiTurnSchema,
    summary: 'Agents API: one turn: status, error, usage',
    tag,
    access: 'user',
    params: turnParams,
    handler: async ({ c, actor, params }) => c.json(await service.getTurn(actor, params.id, params.turn_id)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/turns/{turn_id}/items',
    response: itemsPage,
    summary: "Agents API: one turn's items",
    tag,
    access: 'user',
    params: turnParams,
    query: pageQuerySchema,
    handler: async ({ c, actor, params, query }) =>
      c.json(await service.listItems(actor, params.id, query, params.turn_id)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/items',
    response: itemsPage,
    summary: "Agents API: the session's items: messages, reasoning, tool calls and their results",
    tag,
    access: 'user',
    params: sessionParamsSchema,
    query: pageQuerySchema,
    handler: async ({ c, actor, params, query }) => c.json(await service.listItems(actor, params.id, query)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/subagents',
    response: agentsApiPage(agentsApiSubagentSchema),
    summary: "Agents API: the session's subagents (its child conversations: subagents and delegations)",
    tag,
    access: 'user',
    params: sessionParamsSchema,
    query: pageQuerySchema,
    handler: async ({ c, actor, params, query }) =>
      c.json(await service.listSubagents(actor, params.id, query)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/subagents/{subagent_id}',
    response: agentsApiSubagentSchema,
    summary: 'Agents API: one subagent',
    tag,
    access: 'user',
    params: subagentParams,
    handler: async ({ c, actor, params }) =>
      c.json(await service.getSubagent(actor, params.id, params.subagent_id)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/subagents/{subagent_id}/items',
    response: itemsPage,
    summary: "Agents API: a subagent's items (its child thread)",
    tag,
    access: 'user',
    params: subagentParams,
    query: pageQuerySchema,
    handler: async ({ c, actor, params, query }) =>
      c.json(await service.listSubagentItems(actor, params.id, params.subagent_id, query)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/subagents/{subagent_id}/turns',
    response: turnsPage,
    summary: "Agents API: a subagent's turns (the runs of its child conversation)",
    tag,
    access: 'user',
    params: subagentParams,
    query: pageQuerySchema,
    handler: async ({ c, actor, params, query }) =>
      c.json(await service.listSubagentTurns(actor, params.id, params.subagent_id, query)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/subagents/{subagent_id}/turns/{turn_id}',
    response: agentsApiTurnSchema,
    summary: "Agents API: one of a subagent's turns",
    tag,
    access: 'user',
    params: subagentTurnParams,
    handler: async ({ c, actor, params }) =>
      c.json(await service.getSubagentTurn(actor, params.id, params.subagent_id, params.turn_id)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/subagents/{subagent_id}/turns/{turn_id}/items',
    response: itemsPage,
    summary: "Agents API: one subagent turn's items",
    tag,
    access: 'user',
    params: subagentTurnParams,
    query: pageQuerySchema,
    handler: async ({ c, actor, params, query }) =>
      c.json(await service.listSubagentItems(actor, params.id, params.subagent_id, query, params.turn_id)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/artifacts',
    response: agentsApiPage(agentsApiArtifactSchema),
    summary: 'Agents API: the files the session presented (present_artifacts)',
    tag,
    access: 'user',
    params: sessionParamsSchema,
    query: pageQuerySchema.extend({
      environment_id: z.string().nullable().optional().describe('Ignored: one workdir'),
    }),
    handler: async ({ c, actor, params, query }) =>
      c.json(await service.listArtifacts(actor, params.id, query)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/artifacts/{artifact_id}',
    response: agentsApiArtifactSchema,
    summary: 'Agents API: one artifact',
    tag,
    access: 'user',
    params: artifactParams,
    handler: async ({ c, actor, params }) =>
      c.json(await service.getArtifact(actor, params.id, params.artifact_id)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}/artifacts/{artifact_id}/content',
    summary: "Agents API: an artifact's file as it is now in the project workdir",
    tag,
    access: 'user',
    params: artifactParams,
    produces: KNOWN_CONTENT_TYPES,
    errors: ['artifact_too_large', 'artifact_file_missing'],
    handler: async ({ actor, params }) => {
      const download = await service.artifactContent(actor, params.id, params.artifact_id);
      return artifactDownloadResponse(download);
    },
  });

  registry.add({
    method: 'delete',
    path: '/v1/agents/sessions/{id}/artifacts/{artifact_id}',
    response: agentsApiDeleted('agent.session.artifact.deleted'),
    summary: 'Agents API: forget an artifact (its file stays in the workdir)',
    tag,
    access: 'user',
    params: artifactParams,
    handler: async ({ c, actor, params }) =>
      c.json(await service.deleteArtifact(actor, params.id, params.artifact_id)),
  });
}
