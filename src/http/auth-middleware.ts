import type { MiddlewareHandler } from 'hono';
import { isTroupeError, TroupeError } from '../core/errors.js';
import type { AuthService } from '../runtime/auth/auth-service.js';
import type { AuthThrottle } from '../runtime/auth/auth-throttle.js';
import type { AppEnv } from './app-env.js';
import { clientAddress, clientKey } from './client-address.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export interface AuthGuardOptions {
  /** Failed bearer attempts per client address (docs/egress-and-secrets.md). */
  throttle?: AuthThrottle;
  /** Take the client address from `X-Forwarded-For`. */
  trustProxy?: boolean;
}

/** `Authorization: Bearer trp_…`; sets `user` and `token` on the context or answers 401 (429 when throttled). */
export function createAuthMiddleware(
  auth: AuthService,
  options: AuthGuardOptions = {},
): MiddlewareHandler<AppEnv> {
  const { throttle } = options;
  return async (c, next) => {
    const header = c.req.header('Authorization');
    const match = header === undefined ? null : BEARER.exec(header);
    if (match?.[1] === undefined) {
      throw new TroupeError('unauthorized', 'Send an API token as "Authorization: Bearer <token>"');
    }
    // Only presented tokens count: a missing header guesses nothing.
    const client = throttle ? clientKey(clientAddress(c, options.trustProxy ?? false)) : undefined;
    if (throttle && client !== undefined) {
      // Checked before the token, or a blocked client could still learn which guess is right.
      const retryAfter = throttle.retryAfter(client);
      if (retryAfter !== undefined) {
        throw new TroupeError(
          'too_many_requests',
          `Too many failed authentication attempts; retry in ${retryAfter} s`,
          {
            details: { retry_after_seconds: retryAfter },
          },
        );
      }
    }
    try {
      const { user, token } = await auth.authenticate(match[1]);
      c.set('user', user);
      c.set('token', token);
    } catch (error) {
      if (throttle && client !== undefined && isTroupeError(error, 'unauthorized'))
        throttle.recordFailure(client);
      throw error;
    }
    await next();
  };
}
