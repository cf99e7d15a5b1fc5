import type { Hono } from 'hono';
import { z } from 'zod';
import { TroupeError } from '../../core/errors.js';
import {
  agentCreateBodySchema,
  agentUpdateBodySchema,
  AGENTS_API_TAG,
  idempotencyKeyOf,
  metadataFilter,
  pageQuerySchema,
  sessionCreateBodySchema,
  sessionListQuerySchema,
  sessionParamsSchema,
  sessionUpdateBodySchema,
} from '../agents-api/agents-api-requests.js';
import type { AppDependencies } from '../app-dependencies.js';
import type { AppEnv } from '../app-env.js';
import type { Logger } from '../logger.js';
import type { RouteRegistry } from '../route-registry.js';
import {
  agentsApiAgentSchema,
  agentsApiDeleted,
  agentsApiPage,
  agentsApiSessionSchema,
} from '../response-schemas/agents-api-records.js';
import { registerAgentsApiSessionRoutes } from './agents-api-session-routes.js';

const agentParamsSchema = z.object({ id: z.string().min(1).max(200).describe('An agent id or slug') });

/** Endpoint families of the Agents API shape that Troupe does not have: a clear `404 not_supported`. */
const NOT_SUPPORTED: readonly { path: string; what: string }[] = [
  { path: '/v1/agents/environments', what: 'Hosted environments (sessions use the execute sandbox)' },
  { path: '/v1/agents/automations', what: 'Automations' },
  { path: '/v1/vaults', what: 'Vaults' },
];

function notSupported(what: string): never {
  throw new TroupeError('not_supported', `${what} are not supported by Troupe (docs/interoperability.md)`);
}

/**
 * OpenAI's Agents API shape (docs/interoperability.md#openai-agents-api, README "OpenAI Agents API"): agents,
 * sessions and their events, turns, items, subagents and artifacts under `/v1`, over Troupe's agents,
 * conversations and runs. Registered inside `/v1` (OpenAI-shaped errors) before its catch-all; the session
 * collection is registered before `/v1/agents/{id}` so `sessions` is never taken for an agent id.
 */
export function registerAgentsApiRoutes(
  app: Hono<AppEnv>,
  registry: RouteRegistry,
  deps: AppDependencies,
  logger: Logger,
): void {
  const service = deps.agentsApi;
  const tag = AGENTS_API_TAG;

  // Outside the route registry, so outside the OpenAPI document: these answer nothing but the refusal.
  for (const { path, what } of NOT_SUPPORTED) {
    app.all(path, () => notSupported(what));
    app.all(`${path}/*`, () => notSupported(what));
  }
  app.all('/v1/agents/sessions/:id/traces', () =>
    notSupported('Session traces (Troupe exports OpenTelemetry traces: README "Tracing")'),
  );

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions',
    response: agentsApiPage(agentsApiSessionSchema),
    summary: 'Agents API: your sessions (active conversations), newest first',
    tag,
    access: 'user',
    query: sessionListQuerySchema,
    handler: async ({ c, actor, query }) =>
      c.json(
        await service.listSessions(actor, {
          ...query,
          metadata: metadataFilter(query),
        }),
      ),
  });

  registry.add({
    method: 'post',
    path: '/v1/agents/sessions',
    response: agentsApiSessionSchema,
    summary: 'Agents API: start a session (a conversation) with an agent, optionally with its first message',
    description:
      '`input` starts the first turn; the `Idempotency-Key` header makes that turn idempotent. Deleting a ' +
      'session archives its conversation.',
    tag,
    access: 'user',
    body: sessionCreateBodySchema,
    errors: ['environment_not_available', 'not_supported'],
    handler: async ({ c, actor, body }) => {
      const input = body.input ?? undefined;
      return c.json(
        await service.createSession(actor, {
          agent_id: body.agent_id,
          environment: body.environment,
          metadata: body.metadata,
          idempotencyKey: idempotencyKeyOf(c),
          ...(input === undefined
            ? {}
            : {
                input:
                  typeof input === 'string' ? input : { type: 'agent.session.input.message' as const, input },
              }),
        }),
      );
    },
  });

  registerAgentsApiSessionRoutes(registry, deps, logger);

  registry.add({
    method: 'get',
    path: '/v1/agents',
    response: agentsApiPage(agentsApiAgentSchema),
    summary: 'Agents API: the main agents you can use',
    tag,
    access: 'user',
    query: pageQuerySchema,
    handler: async ({ c, actor, query }) => c.json(await service.listAgents(actor, query)),
  });

  registry.add({
    method: 'post',
    path: '/v1/agents',
    response: agentsApiAgentSchema,
    summary: 'Agents API: create an agent (a private main agent of yours)',
    description:
      '`name`, `instructions` (the system prompt), `model` (a Troupe model spec) and ' +
      '`multi_agent.max_concurrent_subagents` map onto the agent; tools and metadata must be empty.',
    tag,
    access: 'user',
    body: agentCreateBodySchema,
    handler: async ({ c, actor, body }) => c.json(await service.createAgent(actor, body)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/{id}',
    response: agentsApiAgentSchema,
    summary: 'Agents API: one agent',
    tag,
    access: 'user',
    params: agentParamsSchema,
    handler: async ({ c, actor, params }) => c.json(await service.getAgent(actor, params.id)),
  });

  registry.add({
    method: 'post',
    path: '/v1/agents/{id}',
    response: agentsApiAgentSchema,
    summary: 'Agents API: update an agent (its owner or an admin)',
    tag,
    access: 'user',
    params: agentParamsSchema,
    body: agentUpdateBodySchema,
    handler: async ({ c, actor, params, body }) => c.json(await service.updateAgent(actor, params.id, body)),
  });

  registry.add({
    method: 'delete',
    path: '/v1/agents/{id}',
    response: agentsApiDeleted('agent.deleted'),
    summary: 'Agents API: delete an agent (soft delete, as DELETE /api/agent/{id})',
    tag,
    access: 'user',
    params: agentParamsSchema,
    handler: async ({ c, actor, params }) => c.json(await service.deleteAgent(actor, params.id)),
  });

  registry.add({
    method: 'get',
    path: '/v1/agents/sessions/{id}',
    response: agentsApiSessionSchema,
    summary: 'Agents API: one session: status, required actions, usage',
    tag,
    access: 'user',
    params: sessionParamsSchema,
    handler: async ({ c, actor, params }) => c.json(await service.getSession(actor, params.id)),
  });

  registry.add({
    method: 'post',
    path: '/v1/agents/sessions/{id}',
    response: agentsApiSessionSchema,
    summary: "Agents API: update a session's metadata",
    tag,
    access: 'user',
    params: sessionParamsSchema,
    body: sessionUpdateBodySchema,
    handler: async ({ c, actor, params, body }) =>
      c.json(await service.updateSession(actor, params.id, body.metadata)),
  });

  registry.add({
    method: 'delete',
    path: '/v1/agents/sessions/{id}',
    response: agentsApiDeleted('agent.session.deleted'),
    summary: 'Agents API: delete a session (archives its conversation)',
    tag,
    access: 'user',
    params: sessionParamsSchema,
    handler: async ({ c, actor, params }) => c.json(await service.deleteSession(actor, params.id)),
  });
}
