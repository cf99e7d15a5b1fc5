import { z } from 'zod';
import { redactAgent } from '../../core/mcp-secrets.js';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

export const grantBodySchema = z
  .object({
    user_id: z.string().min(1).max(200).describe('The user who gets access'),
    source: z.enum(['granted', 'purchased']).default('granted').describe('Why the user has access'),
  })
  .strict();

const grantParamsSchema = z.object({
  id: z.string().min(1).max(200).describe('Agent id or slug'),
  user_id: z.string().min(1).max(200).describe('The user whose grant is revoked'),
});

/** Expert fields of an agent (docs/records-and-access.md, docs/delegation.md): publishing and access grants. Soft delete is `DELETE /api/agent/{id}`. */
export function registerExpertRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  const { experts } = deps;

  registry.add({
    method: 'post',
    path: '/api/agent/{id}/publish',
    errors: ['subagent_cannot_be_published', 'forbidden'],

    response: RESPONSES.agent,
    summary: 'Publish an expert (owner or admin; subagents cannot be published)',
    tag: 'experts',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ agent: redactAgent(await experts.publish(actor, params.id)) }),
  });

  registry.add({
    method: 'post',
    path: '/api/agent/{id}/unpublish',

    response: RESPONSES.agent,
    summary: 'Back to draft: the expert leaves every delegation roster (owner or admin)',
    tag: 'experts',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ agent: redactAgent(await experts.unpublish(actor, params.id)) }),
  });

  registry.add({
    method: 'get',
    path: '/api/agent/{id}/grants',

    response: RESPONSES.grants,
    summary: 'Who holds an access grant on an agent (owner or admin)',
    tag: 'experts',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => c.json({ grants: await experts.listGrants(actor, params.id) }),
  });

  registry.add({
    method: 'post',
    path: '/api/agent/{id}/grants',

    response: RESPONSES.grant,
    summary: 'Grant a user access (admins always; owners on shared agents); idempotent',
    description: 'Answers 201 with the new grant, or 200 with the existing one (its first source is kept).',
    tag: 'experts',
    access: 'user',
    status: 201,
    params: idParamsSchema,
    body: grantBodySchema,
    handler: async ({ c, actor, params, body }) => {
      const { grant, created } = await experts.grant(actor, params.id, body.user_id, body.source);
      return c.json({ grant }, created ? 201 : 200);
    },
  });

  registry.add({
    method: 'delete',
    path: '/api/agent/{id}/grants/{user_id}',
    summary: "Revoke a user's granted or purchased access (admins always; owners on shared agents)",
    tag: 'experts',
    access: 'user',
    status: 204,
    params: grantParamsSchema,
    handler: async ({ c, actor, params }) => {
      await experts.revokeGrant(actor, params.id, params.user_id);
      return c.body(null, 204);
    },
  });
}
