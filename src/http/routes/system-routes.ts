import type { AppDependencies } from '../app-dependencies.js';
import { API_VERSION, buildOpenApiDocument } from '../openapi.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

export function registerSystemRoutes(
  registry: RouteRegistry,
  deps: Pick<AppDependencies, 'readiness'>,
): void {
  registry.addPublic({
    method: 'get',
    path: '/api/health',

    response: RESPONSES.health,
    summary: 'Liveness probe',
    tag: 'system',
    handler: ({ c }) => c.json({ status: 'ok', version: API_VERSION }),
  });

  registry.addPublic({
    method: 'get',
    path: '/api/ready',
    response: RESPONSES.ready,
    summary: 'Readiness probe: the database answers, the event bus and run queue are connected',
    description:
      'Unauthenticated and cheap: one trivial statement (shared by concurrent probes), the bus and queue read ' +
      'from their connection state. 503 with `storage_unavailable`, `bus_unavailable` or `queue_unavailable` ' +
      '(the first of them down), `details.checks` and `Retry-After` when this process cannot serve.',
    tag: 'system',
    errors: ['storage_unavailable', 'bus_unavailable', 'queue_unavailable'],
    handler: async ({ c }) => c.json({ status: 'ready', checks: await deps.readiness.check() }),
  });

  let document: Record<string, unknown> | undefined;
  registry.addPublic({
    method: 'get',
    path: '/api/openapi.json',

    response: RESPONSES.openapi,
    summary: 'This API as an OpenAPI 3.1 document',
    tag: 'system',
    // Built on first request, when every route is registered; routes do not change afterwards.
    handler: ({ c }) => c.json((document ??= buildOpenApiDocument(registry.routes()))),
  });
}
