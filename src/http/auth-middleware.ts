import type { MiddlewareHandler } from 'hono';
import { TroupeError } from '../core/errors.js';
import type { AuthService } from '../runtime/auth-service.js';
import type { AppEnv } from './app-env.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** `Authorization: Bearer trp_…`; sets `user` and `token` on the context or answers 401. */
export function createAuthMiddleware(auth: AuthService): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('Authorization');
    const match = header === undefined ? null : BEARER.exec(header);
    if (match?.[1] === undefined) {
      throw new TroupeError('unauthorized', 'Send an API token as "Authorization: Bearer <token>"');
    }
    const { user, token } = await auth.authenticate(match[1]);
    c.set('user', user);
    c.set('token', token);
    await next();
  };
}
