import type { Hono } from 'hono';
import { z } from 'zod';
import { TroupeError } from '../../core/errors.js';
import type { Agent } from '../../core/records/agent.js';
import type { AppDependencies } from '../app-dependencies.js';
import type { AppEnv } from '../app-env.js';
import type { Logger } from '../logger.js';
import { chatCompletionRequestSchema, lastUserText } from '../openai/chat-completion-request.js';
import { respondWithCompletion, streamCompletion } from '../openai/chat-completion-response.js';
import { openAiErrorShape } from '../openai/openai-error.js';
import type { RouteRegistry } from '../route-registry.js';
import { chatCompletionChunkSchema } from '../response-schemas/openai-records.js';
import { RESPONSES } from '../response-schemas/route-responses.js';
import { registerAgentsApiRoutes } from './agents-api-routes.js';

const modelParamsSchema = z.object({
  id: z.string().min(1).max(200).describe("A chat agent's slug"),
});

function modelObject(agent: Agent) {
  return {
    id: agent.slug,
    object: 'model' as const,
    created: Math.floor(Date.parse(agent.created_at) / 1000),
    owned_by: agent.owner_id,
    // Extensions, for clients that show more than the id.
    name: agent.name,
    description: agent.description,
  };
}

/**
 * The OpenAI-compatible surface (docs/interoperability.md, README "OpenAI-compatible API"): `GET /v1/models` lists the
 * caller's chat agents and `POST /v1/chat/completions` runs one. Same bearer tokens, throttle and route
 * registry as `/api` (so the routes are in `/api/openapi.json`); errors in OpenAI's shape.
 */
export function registerOpenAiRoutes(
  app: Hono<AppEnv>,
  registry: RouteRegistry,
  deps: AppDependencies,
  logger: Logger,
): void {
  const service = deps.completions;
  // Registered before the routes so it wraps them, authentication included.
  app.use('/v1/*', openAiErrorShape);

  registry.add({
    method: 'get',
    path: '/v1/models',

    response: RESPONSES.openAiModels,
    summary: 'OpenAI-compatible: the chat agents you can use, as models',
    tag: 'openai',
    access: 'user',
    handler: async ({ c, actor }) =>
      c.json({ object: 'list', data: (await service.listModels(actor)).map((agent) => modelObject(agent)) }),
  });

  registry.add({
    method: 'get',
    path: '/v1/models/{id}',

    response: RESPONSES.openAiModel,
    summary: 'OpenAI-compatible: one chat agent, as a model',
    tag: 'openai',
    access: 'user',
    params: modelParamsSchema,
    handler: async ({ c, actor, params }) => c.json(modelObject(await service.getModel(actor, params.id))),
  });

  registry.add({
    method: 'post',
    path: '/v1/chat/completions',

    response: RESPONSES.openAiCompletion,
    eventSchema: chatCompletionChunkSchema,
    summary: 'OpenAI-compatible: run a chat agent on your last user message',
    description:
      'Each call is one run in a conversation: `conversation_id` continues one of yours, otherwise a new ' +
      'conversation is started. Only the last message (a user message) is used; earlier messages and system ' +
      'messages are not replayed, because Troupe keeps the conversation server-side. `stream: true` answers ' +
      'with `chat.completion.chunk` server-sent events ending with `data: [DONE]`. Closing the connection ' +
      'before the answer is complete cancels the run.',
    tag: 'openai',
    access: 'user',
    body: chatCompletionRequestSchema,
    handler: async ({ c, actor, body }) => {
      const content = lastUserText(body);
      const started = await service.start(actor, {
        model: body.model,
        content,
        ...(body.conversation_id ? { conversationId: body.conversation_id } : {}),
      });
      const options = {
        c,
        actor,
        service,
        started,
        includeUsage: body.stream_options?.include_usage === true,
        cancel: async (runId: string) => {
          try {
            await deps.runs.cancel(actor, runId);
          } catch (error) {
            logger.warn('could not cancel the run of an abandoned completion', {
              run_id: runId,
              error: error instanceof Error ? error.message : String(error),
            });
          }
        },
        heartbeatMs: deps.sseHeartbeatMs,
        logger,
      };
      return body.stream === true ? streamCompletion(options) : respondWithCompletion(options);
    },
  });

  registerAgentsApiRoutes(app, registry, deps, logger);

  // Anything else under /v1 is an OpenAI-shaped 404, not the console's index page.
  app.all('/v1/*', (c) => {
    throw new TroupeError('route_not_found', `No route for ${c.req.method} ${c.req.path}`);
  });
}
