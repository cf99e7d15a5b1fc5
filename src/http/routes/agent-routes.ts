import { z } from 'zod';
import { redactAgent } from '../../core/mcp-secrets.js';
import type { Agent } from '../../core/records/agent.js';
import type { User } from '../../core/records/user.js';
import { agentConfigSchema } from '../../runtime/agents/agent-config-schema.js';
import { createAgentInputSchema, updateAgentInputSchema } from '../../runtime/agents/agent-input-schemas.js';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

const listQuerySchema = z.object({
  include_subagents: z.stringbool().default(false).describe('Also list subagents (management views)'),
});

const draftReportSchema = z
  .object({
    config: agentConfigSchema,
    agent_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        'Agent (id or slug, owner or admin) whose stored MCP secrets fill the redacted placeholders of the draft',
      ),
  })
  .strict();

export function registerAgentRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  const { agents } = deps;
  const reports = deps.buildReports;
  // Authoring is loud (docs/inline-subagents.md): a save answers with what the spec builder would drop, never fails on it.
  // Every agent leaves through here with its MCP secrets redacted (docs/egress-and-secrets.md); the report reads the real ones.
  const warningsFor = async (actor: User, agent: Agent) => ({
    agent: redactAgent(agent),
    warnings: (await reports.forRecord(actor, agent)).report,
  });

  registry.add({
    method: 'get',
    path: '/api/agent',

    response: RESPONSES.agents,
    summary: 'Agents I can use; subagents only with include_subagents=true',
    tag: 'agents',
    access: 'user',
    query: listQuerySchema,
    handler: async ({ c, actor, query }) =>
      c.json({
        agents: (await agents.list(actor, { include_subagents: query.include_subagents })).map(redactAgent),
      }),
  });

  registry.add({
    method: 'post',
    path: '/api/agent',
    errors: ['agent_slug_taken', 'forbidden', 'agent_backend_mismatch'],

    response: RESPONSES.agentWithWarnings,
    summary: 'Create an agent (owner gets a `created` grant); `warnings` is its subagent build report',
    tag: 'agents',
    access: 'user',
    status: 201,
    body: createAgentInputSchema,
    handler: async ({ c, actor, body }) =>
      c.json(await warningsFor(actor, await agents.create(actor, body)), 201),
  });

  registry.add({
    method: 'post',
    path: '/api/agent/build-report',

    response: RESPONSES.buildReport,
    summary:
      'Build report of a draft config (live editor): resolved subagents and every dropped spec or tool',
    tag: 'agents',
    access: 'user',
    body: draftReportSchema,
    handler: async ({ c, actor, body }) => c.json(await reports.forDraft(actor, body.config, body.agent_id)),
  });

  // Before `/api/agent/{id}`: the first matching handler answers, and "default" is a reserved slug.
  registry.add({
    method: 'get',
    path: '/api/agent/default',

    response: RESPONSES.agent,
    summary: 'The default agent',
    tag: 'agents',
    access: 'user',
    handler: async ({ c, actor }) => c.json({ agent: redactAgent(await agents.getDefault(actor)) }),
  });

  registry.add({
    method: 'get',
    path: '/api/agent/{id}',

    response: RESPONSES.agent,
    summary: 'One agent by id or slug (subagents included)',
    tag: 'agents',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ agent: redactAgent(await agents.get(actor, params.id)) }),
  });

  registry.add({
    method: 'get',
    path: '/api/agent/{id}/build-report',

    response: RESPONSES.buildReport,
    summary:
      'Build report of an agent: resolved subagents and every dropped spec or tool (same access as detail)',
    tag: 'agents',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => c.json(await reports.forAgent(actor, params.id)),
  });

  registry.add({
    method: 'put',
    path: '/api/agent/{id}',
    errors: ['agent_slug_taken', 'forbidden', 'agent_backend_mismatch'],

    response: RESPONSES.agentWithWarnings,
    summary:
      'Update an agent (partial; owner or admin; backend is immutable); `warnings` is its build report',
    tag: 'agents',
    access: 'user',
    params: idParamsSchema,
    body: updateAgentInputSchema,
    handler: async ({ c, actor, params, body }) =>
      c.json(await warningsFor(actor, await agents.update(actor, params.id, body))),
  });

  registry.add({
    method: 'delete',
    path: '/api/agent/{id}',
    errors: ['forbidden'],
    summary: 'Soft-delete an agent (owner or admin; not the default agent)',
    tag: 'agents',
    access: 'user',
    status: 204,
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => {
      await agents.delete(actor, params.id);
      return c.body(null, 204);
    },
  });

  registry.add({
    method: 'post',
    path: '/api/agent/{id}/set_default',
    errors: ['subagent_cannot_be_default'],

    response: RESPONSES.agent,
    summary: 'Make an agent the default (admin; not a subagent)',
    tag: 'agents',
    access: 'admin',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ agent: redactAgent(await agents.setDefault(actor, params.id)) }),
  });
}
