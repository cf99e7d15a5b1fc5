import type { ApiToken } from '../core/records/api-token.js';
import type { User } from '../core/records/user.js';

/** Hono context variables, set by the auth middleware on every protected route. */
export interface AppEnv {
  Variables: {
    user: User;
    token: ApiToken;
  };
}
