import { API_VERSION, buildOpenApiDocument } from '../openapi.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

export function registerSystemRoutes(registry: RouteRegistry): void {
  registry.addPublic({
    method: 'get',
    path: '/api/health',

    response: RESPONSES.health,
    summary: 'Liveness probe',
    tag: 'system',
    handler: ({ c }) => c.json({ status: 'ok', version: API_VERSION }),
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
