import { z } from 'zod';
import { ERROR_CODES } from '../core/errors.js';
import type { RegisteredRoute } from './route-registry.js';

type JsonObject = Record<string, unknown>;

export const API_VERSION = '0.1.0';

/** Request-side JSON Schema (2020-12, which OpenAPI 3.1 uses as is), without the `$schema` marker. */
function inputSchema(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as JsonObject;
  return rest;
}

function parameters(route: RegisteredRoute): JsonObject[] {
  const result: JsonObject[] = [];
  for (const [location, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (schema === undefined) continue;
    const json = inputSchema(schema);
    const properties = (json.properties ?? {}) as Record<string, JsonObject>;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      const { description, ...propertySchema } = property;
      result.push({
        name,
        in: location,
        required: location === 'path' || required.has(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: propertySchema,
      });
    }
  }
  return result;
}

function operationId(route: RegisteredRoute): string {
  const words = route.path
    .replace(/^\/api\//, '')
    .split(/[^a-zA-Z0-9]+/)
    .filter((word) => word !== '');
  return [route.method, ...words]
    .map((word, index) => (index === 0 ? word : word[0]?.toUpperCase() + word.slice(1)))
    .join('');
}

function operation(route: RegisteredRoute): JsonObject {
  const status = String(route.status ?? 200);
  const success: JsonObject =
    status === '204'
      ? { description: 'No content' }
      : { description: 'Success', content: { [route.produces ?? 'application/json']: {} } };
  const result: JsonObject = {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.tag],
    security: route.access === 'public' ? [] : [{ bearerAuth: [] }],
    responses: {
      [status]: success,
      default: {
        description: 'Error: `{error: {code, message}}` with a stable machine code',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  };
  if (route.description !== undefined) result.description = route.description;
  if (route.access === 'admin') result['x-troupe-access'] = 'admin';
  const routeParameters = parameters(route);
  if (routeParameters.length > 0) result.parameters = routeParameters;
  if (route.multipartFiles !== undefined) {
    const { field, description } = route.multipartFiles;
    result.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: [field],
            properties: { [field]: { type: 'array', description, items: { type: 'string', format: 'binary' } } },
            additionalProperties: false,
          },
        },
      },
    };
  }
  if (route.body !== undefined) {
    result.requestBody = {
      required: true,
      content: { 'application/json': { schema: inputSchema(route.body) } },
    };
  }
  if (route.rawBody !== undefined) result.requestBody = rawRequestBody(route.rawBody);
  if (route.consumes !== undefined) {
    result.requestBody = {
      required: true,
      content: Object.fromEntries(Object.entries(route.consumes).map(([mediaType, schema]) => [mediaType, { schema }])),
    };
  }
  return result;
}

const BINARY = { type: 'string', format: 'binary' } as const;

function rawRequestBody(media: NonNullable<RegisteredRoute['rawBody']>): JsonObject {
  const content: JsonObject = {};
  for (const [type, schema] of Object.entries(media)) {
    if (schema === 'binary') content[type] = { schema: BINARY };
    else if (schema === 'multipart') {
      content[type] = { schema: { type: 'object', required: ['file'], properties: { file: BINARY } } };
    } else content[type] = { schema: inputSchema(schema) };
  }
  return { required: true, content };
}

/** OpenAPI 3.1 built from the route registry: every served route, and only those. */
export function buildOpenApiDocument(routes: readonly RegisteredRoute[]): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    item[route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Troupe API',
      version: API_VERSION,
      description: 'Self-hostable multi-agent server. Authenticate with `Authorization: Bearer <token>`.',
    },
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: [...ERROR_CODES] },
                message: { type: 'string' },
                details: { type: 'object' },
              },
            },
          },
        },
      },
    },
  };
}
