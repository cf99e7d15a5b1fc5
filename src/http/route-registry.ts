import type { Context, Hono, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { TroupeError, type ErrorCode } from '../core/errors.js';
import type { User } from '../core/records/user.js';
import { isAdmin } from '../core/records/user.js';
import type { AppEnv } from './app-env.js';
import { parseInput, readJsonBody } from './body.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** `public`: no token; `user`: any valid token; `admin`: a token of an admin. */
export type RouteAccess = 'public' | 'user' | 'admin';

interface RouteSpecBase {
  method: HttpMethod;
  /** OpenAPI style, e.g. `/api/agent/{id}`; converted to Hono's `:id`. */
  path: string;
  summary: string;
  tag: string;
  description?: string;
  /** Success status, for the document. */
  status?: number;
  /** Response media type(s) when it is not JSON (SSE, a download's possible types). */
  produces?: string | readonly string[];
  /**
   * The JSON each `data:` frame of a `text/event-stream` answer carries, documented as the stream's event
   * schema; with a `response` too, the route answers JSON or SSE (as the request asks).
   */
  eventSchema?: z.ZodType;
  /** The success body (JSON): documented in the OpenAPI document and, under test, checked on every response. */
  response?: z.ZodType;
  /**
   * Error codes particular to this route (conflicts, refusals), documented under their HTTP status. Input,
   * authentication, admin and not-found errors are derived from the route itself.
   */
  errors?: readonly ErrorCode[];
  /**
   * A body the handler reads itself (uploads), by media type, for the OpenAPI document only: a zod schema for
   * JSON, `binary` for raw bytes, `multipart` for a form with a `file` field. Never set together with `body`.
   */
  rawBody?: Readonly<Record<string, z.ZodType | 'binary' | 'multipart'>>;
  /** A body the handler reads itself (uploads): its JSON Schema by media type. JSON bodies use `body`. */
  consumes?: Readonly<Record<string, Record<string, unknown>>>;
  /** A `multipart/form-data` upload the handler reads itself; documented as file parts named `field`. */
  multipartFiles?: { field: string; description: string };
}

interface RouteSchemas<TParams, TQuery, TBody> {
  params?: z.ZodType<TParams>;
  query?: z.ZodType<TQuery>;
  body?: z.ZodType<TBody>;
}

export interface PublicRouteInput<TParams, TQuery> {
  c: Context<AppEnv>;
  params: TParams;
  query: TQuery;
  /** The caller, on a route with `optionalAuth` that was sent a valid token; undefined otherwise. */
  actor?: User | undefined;
}

export interface RouteInput<TParams, TQuery, TBody> extends PublicRouteInput<TParams, TQuery> {
  /** The authenticated user; a `User` is also the `Actor` every service takes. */
  actor: User;
  body: TBody;
}

export interface RouteSpec<TParams, TQuery, TBody>
  extends RouteSpecBase, RouteSchemas<TParams, TQuery, TBody> {
  access: 'user' | 'admin';
  handler: (input: RouteInput<TParams, TQuery, TBody>) => Response | Promise<Response>;
}

export interface PublicRouteSpec<TParams, TQuery>
  extends RouteSpecBase, RouteSchemas<TParams, TQuery, never> {
  /**
   * A token is optional: without an `Authorization` header the handler runs anonymously; with one it must
   * be valid (401 and the failed-token throttle otherwise) and the handler gets its user.
   */
  optionalAuth?: boolean;
  handler: (input: PublicRouteInput<TParams, TQuery>) => Response | Promise<Response>;
}

/** What the OpenAPI document is built from: the same objects that registered the routes. */
export interface RegisteredRoute extends RouteSpecBase {
  access: RouteAccess;
  /** A public route that also takes a token (and answers more with one). */
  optionalAuth?: boolean;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

export interface RouteRegistry {
  add<TParams = undefined, TQuery = undefined, TBody = undefined>(
    spec: RouteSpec<TParams, TQuery, TBody>,
  ): void;
  addPublic<TParams = undefined, TQuery = undefined>(spec: PublicRouteSpec<TParams, TQuery>): void;
  routes(): readonly RegisteredRoute[];
}

export interface RouteRegistryOptions {
  app: Hono<AppEnv>;
  authenticate: MiddlewareHandler<AppEnv>;
  maxBodyBytes: number;
  /**
   * Checks every JSON success body against the route's `response` schema and answers 500 on a mismatch:
   * on under test, so the OpenAPI document cannot drift from what handlers send.
   */
  checkResponses?: boolean;
}

const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!isAdmin(c.get('user'))) throw new TroupeError('forbidden', 'This action needs an admin');
  await next();
};

const passThrough: MiddlewareHandler<AppEnv> = async (_c, next) => next();

function toHonoPath(path: string): string {
  return path.replace(/\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g, ':$1');
}

/**
 * Registers routes on the Hono app and remembers them for `/api/openapi.json`, so the document cannot
 * drift from what is served. Every route validates its path params, query and body with its own schemas
 * before the handler runs; authentication runs before any of that.
 */
export function createRouteRegistry(options: RouteRegistryOptions): RouteRegistry {
  const { app, authenticate, maxBodyBytes } = options;
  const registered: RegisteredRoute[] = [];

  async function checked(spec: RouteSpecBase, response: Response): Promise<Response> {
    if (!options.checkResponses || spec.response === undefined) return response;
    if (response.status < 200 || response.status >= 300) return response;
    if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) return response;
    const result = spec.response.safeParse(await response.clone().json());
    if (result.success) return response;
    throw new TroupeError(
      'internal',
      `${spec.method.toUpperCase()} ${spec.path} answered a body its documented schema refuses: ${z.prettifyError(result.error)}`,
    );
  }

  function parseCommon<TParams, TQuery>(
    c: Context<AppEnv>,
    schemas: RouteSchemas<TParams, TQuery, unknown>,
  ): { params: TParams; query: TQuery } {
    // Without a schema the value is `undefined`, which is what the `= undefined` type defaults promise.
    const params = schemas.params ? parseInput(schemas.params, c.req.param(), 'path') : undefined;
    const query = schemas.query ? parseInput(schemas.query, c.req.query(), 'query') : undefined;
    return { params: params as TParams, query: query as TQuery };
  }

  return {
    add<TParams, TQuery, TBody>(spec: RouteSpec<TParams, TQuery, TBody>) {
      const { handler, ...doc } = spec;
      registered.push(doc);
      const guard = spec.access === 'admin' ? requireAdmin : passThrough;
      app.on(spec.method.toUpperCase(), toHonoPath(spec.path), authenticate, guard, async (c) => {
        const { params, query } = parseCommon(c, spec);
        const body = spec.body ? await readJsonBody(c, spec.body, maxBodyBytes) : undefined;
        return checked(spec, await handler({ c, actor: c.get('user'), params, query, body: body as TBody }));
      });
    },

    addPublic<TParams, TQuery>(spec: PublicRouteSpec<TParams, TQuery>) {
      const { handler, ...doc } = spec;
      registered.push({ ...doc, access: 'public' });
      const maybeAuthenticate: MiddlewareHandler<AppEnv> = (c, next) =>
        spec.optionalAuth === true && c.req.header('Authorization') !== undefined
          ? authenticate(c, next)
          : next();
      app.on(spec.method.toUpperCase(), toHonoPath(spec.path), maybeAuthenticate, async (c) =>
        checked(spec, await handler({ c, ...parseCommon(c, spec), actor: c.get('user') })),
      );
    },

    routes: () => registered,
  };
}
