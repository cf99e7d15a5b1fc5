import { z } from 'zod';
import { TroupeError } from '../../core/errors.js';
import { toPublicToken } from '../../runtime/auth/auth-service.js';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

export const createTokenBodySchema = z.object({ name: z.string().trim().min(1).max(100) }).strict();

export function registerMeRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  registry.add({
    method: 'get',
    path: '/api/me',

    response: RESPONSES.me,
    summary: 'The user the token belongs to',
    tag: 'me',
    access: 'user',
    handler: ({ c, actor }) => c.json({ user: actor }),
  });

  registry.add({
    method: 'get',
    path: '/api/me/tokens',

    response: RESPONSES.tokens,
    summary: 'My API tokens (revoked ones included; secrets are never returned)',
    tag: 'me',
    access: 'user',
    handler: async ({ c, actor }) => {
      const tokens = await deps.storage.tokens.listForUser(actor.id);
      return c.json({ tokens: tokens.map(toPublicToken) });
    },
  });

  registry.add({
    method: 'post',
    path: '/api/me/tokens',

    response: RESPONSES.createdToken,
    summary: 'Create an API token; the secret is in this response only',
    tag: 'me',
    access: 'user',
    status: 201,
    body: createTokenBodySchema,
    handler: async ({ c, actor, body }) => {
      const issued = await deps.auth.issueToken(actor.id, body.name);
      return c.json({ token: issued.token, record: toPublicToken(issued.record) }, 201);
    },
  });

  registry.add({
    method: 'delete',
    path: '/api/me/tokens/{id}',
    summary: 'Revoke one of my tokens',
    tag: 'me',
    access: 'user',
    status: 204,
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => {
      const revoked = await deps.auth.revokeToken(actor.id, params.id);
      if (!revoked) throw new TroupeError('token_not_found', `Token "${params.id}" not found`);
      return c.body(null, 204);
    },
  });
}
