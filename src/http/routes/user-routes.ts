import { z } from 'zod';
import { USER_ROLES } from '../../core/records/user.js';
import { toPublicToken } from '../../runtime/auth/auth-service.js';
import type { AppDependencies } from '../app-dependencies.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

export const createUserBodySchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    role: z.enum(USER_ROLES).default('member'),
  })
  .strict();

export function registerUserRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  registry.add({
    method: 'get',
    path: '/api/users',

    response: RESPONSES.users,
    summary: 'All users',
    tag: 'users',
    access: 'admin',
    handler: async ({ c }) => c.json({ users: await deps.storage.users.list() }),
  });

  registry.add({
    method: 'post',
    path: '/api/users',
    errors: ['user_exists'],

    response: RESPONSES.createdUser,
    summary: 'Create a user and a first API token (the secret is in this response only)',
    tag: 'users',
    access: 'admin',
    status: 201,
    body: createUserBodySchema,
    handler: async ({ c, body }) => {
      const created = await deps.auth.createUserWithToken(body.name, body.role, 'initial');
      return c.json({ user: created.user, token: created.token, record: toPublicToken(created.record) }, 201);
    },
  });
}
