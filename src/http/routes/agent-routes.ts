import { z } from 'zod';
import { createAgentInputSchema, updateAgentInputSchema } from '../../runtime/agent-input-schemas.js';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { RouteRegistry } from '../route-registry.js';

const listQuerySchema = z.object({
  include_subagents: z.stringbool().default(false).describe('Also list subagents (management views)'),
});

export function registerAgentRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  const { agents } = deps;

  registry.add({
    method: 'get',
    path: '/api/agent',
    summary: 'Agents I can use; subagents only with include_subagents=true',
    tag: 'agents',
    access: 'user',
    query: listQuerySchema,
    handler: async ({ c, actor, query }) =>
      c.json({ agents: await agents.list(actor, { include_subagents: query.include_subagents }) }),
  });

  registry.add({
    method: 'post',
    path: '/api/agent',
    summary: 'Create an agent (owner gets a `created` grant)',
    tag: 'agents',
    access: 'user',
    status: 201,
    body: createAgentInputSchema,
    handler: async ({ c, actor, body }) => c.json({ agent: await agents.create(actor, body) }, 201),
  });

  // Before `/api/agent/{id}`: the first matching handler answers, and "default" is a reserved slug.
  registry.add({
    method: 'get',
    path: '/api/agent/default',
    summary: 'The default agent',
    tag: 'agents',
    access: 'user',
    handler: async ({ c, actor }) => c.json({ agent: await agents.getDefault(actor) }),
  });

  registry.add({
    method: 'get',
    path: '/api/agent/{id}',
    summary: 'One agent by id or slug (subagents included)',
    tag: 'agents',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => c.json({ agent: await agents.get(actor, params.id) }),
  });

  registry.add({
    method: 'put',
    path: '/api/agent/{id}',
    summary: 'Update an agent (partial; owner or admin; backend is immutable)',
    tag: 'agents',
    access: 'user',
    params: idParamsSchema,
    body: updateAgentInputSchema,
    handler: async ({ c, actor, params, body }) =>
      c.json({ agent: await agents.update(actor, params.id, body) }),
  });

  registry.add({
    method: 'delete',
    path: '/api/agent/{id}',
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
    summary: 'Make an agent the default (admin; not a subagent)',
    tag: 'agents',
    access: 'admin',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => c.json({ agent: await agents.setDefault(actor, params.id) }),
  });
}
