import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../core/errors.js';
import { ERROR_STATUS } from './error-status.js';
import { RESPONSE_SCHEMAS } from './response-schemas/records.js';
import type { RegisteredRoute } from './route-registry.js';

type JsonObject = Record<string, unknown>;

export const API_VERSION = '0.1.0';

/**
 * JSON Schema (2020-12, which OpenAPI 3.1 uses as is) without the `$schema` marker: the request side by
 * default; the parsed side (`io: 'output'`, where a `stringbool` is a boolean) for what a parameter means.
 */
function inputSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonObject;
  return rest;
}

const COMPONENT = '#/components/schemas/';

/** Rewrites the `$defs` refs of one converted schema to the document's shared components. */
function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (value === null || typeof value !== 'object') return value;
  const result: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/')) {
      result[key] = COMPONENT + item.slice('#/$defs/'.length);
    } else if (key !== '$defs' && key !== '$schema' && key !== '$id') result[key] = toComponentRefs(item);
  }
  return result;
}

/** A success body's JSON Schema; the named records it uses become `$ref`s to `components.schemas`. */
function outputSchema(schema: z.ZodType): JsonObject {
  const json = z.toJSONSchema(schema, {
    io: 'output',
    unrepresentable: 'any',
    metadata: RESPONSE_SCHEMAS,
    cycles: 'ref',
  });
  return toComponentRefs(json) as JsonObject;
}

/** Every named response record, for `components.schemas`. */
function componentSchemas(): Record<string, unknown> {
  const { schemas } = z.toJSONSchema(RESPONSE_SCHEMAS, {
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => COMPONENT + id,
  });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, toComponentRefs(schema)]));
}

const ERROR_RESPONSE = { content: { 'application/json': { schema: { $ref: `${COMPONENT}Error` } } } };

/**
 * The error answers of a route: 4xx derived from its inputs, access and path, plus the codes it declares (a
 * 5xx only when declared, as a readiness probe's 503: any route may fail with `internal`).
 */
function errorResponses(route: RegisteredRoute): Record<string, JsonObject> {
  const codes = new Set<ErrorCode>(route.errors ?? []);
  const hasInput =
    route.params !== undefined ||
    route.query !== undefined ||
    route.body !== undefined ||
    route.rawBody !== undefined ||
    route.consumes !== undefined ||
    route.multipartFiles !== undefined;
  if (hasInput) codes.add('validation_failed');
  if (route.body !== undefined) codes.add('invalid_json');
  if (route.body !== undefined || route.rawBody !== undefined || route.multipartFiles !== undefined) {
    codes.add('payload_too_large');
  }
  if (route.access !== 'public' || route.optionalAuth === true) {
    codes.add('unauthorized');
    codes.add('too_many_requests');
  }
  if (route.access === 'admin') codes.add('forbidden');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  // A path id that does not exist, or belongs to another user, is not found (never forbidden).
  if (/\{[^}]+\}/.test(route.path) && !byStatus.has(404)) byStatus.set(404, []);
  const responses: Record<string, JsonObject> = {};
  for (const [status, list] of [...byStatus.entries()].sort(([left], [right]) => left - right)) {
    const named = list.length > 0 ? list.map((code) => `\`${code}\``).join(', ') : 'a `*_not_found` code';
    responses[String(status)] = { description: `Error: ${named}`, ...ERROR_RESPONSE };
  }
  return responses;
}

/** The `Last-Event-ID` header of an SSE route: where a reconnecting client resumes. */
const LAST_EVENT_ID = {
  name: 'Last-Event-ID',
  in: 'header',
  required: false,
  description: 'Resume after this event seq (what an EventSource sends when it reconnects)',
  schema: { type: 'string', pattern: '^[0-9]+$' },
};

function parameters(route: RegisteredRoute): JsonObject[] {
  const result: JsonObject[] = [];
  for (const [location, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (schema === undefined) continue;
    const json = inputSchema(schema);
    const required = new Set((json.required ?? []) as string[]);
    // The wire value is a string, but what it means is the parsed type (`true`, a number): document that,
    // as clients generate typed parameters from it. Which ones are required is the input's business.
    const properties = (inputSchema(schema, 'output').properties ?? json.properties ?? {}) as Record<
      string,
      JsonObject
    >;
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

const SSE = 'text/event-stream';

function mediaTypes(route: RegisteredRoute): readonly string[] {
  if (route.produces === undefined) return [];
  return typeof route.produces === 'string' ? [route.produces] : route.produces;
}

function successContent(route: RegisteredRoute): JsonObject {
  const content: JsonObject = {};
  const produced = mediaTypes(route);
  if (route.response !== undefined || produced.length === 0) {
    content['application/json'] = { schema: route.response ? outputSchema(route.response) : {} };
  }
  if (produced.includes(SSE) || route.eventSchema !== undefined) {
    content[SSE] = {
      schema: {
        type: 'string',
        description: route.eventSchema
          ? 'Server-sent events; each `data:` is one JSON event of `x-event-schema`'
          : 'Frames `id: <seq>`, `event: <type>`, `data: <RunEvent JSON>`',
      },
      'x-event-schema': route.eventSchema
        ? outputSchema(route.eventSchema)
        : { $ref: `${COMPONENT}RunEvent` },
    };
  }
  for (const type of produced)
    if (type !== SSE) content[type] = { schema: { type: 'string', format: 'binary' } };
  return content;
}

/** An empty requirement next to the bearer one is OpenAPI's way of saying the token is optional. */
function securityOf(route: RegisteredRoute): JsonObject[] {
  if (route.access !== 'public') return [{ bearerAuth: [] }];
  return route.optionalAuth === true ? [{}, { bearerAuth: [] }] : [];
}

function operation(route: RegisteredRoute): JsonObject {
  // The run event stream resumes by `Last-Event-ID`; the protocol streams (AG-UI, completions) do not.
  const resumable = mediaTypes(route).includes(SSE) && route.eventSchema === undefined;
  const status = String(route.status ?? 200);
  const success: JsonObject =
    status === '204'
      ? { description: 'No content' }
      : { description: 'Success', content: successContent(route) };
  const result: JsonObject = {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.tag],
    security: securityOf(route),
    responses: {
      [status]: success,
      ...(resumable ? { '204': { description: 'The client has seen the end already' } } : {}),
      ...errorResponses(route),
      default: {
        description: 'Error: `{error: {code, message}}` with a stable machine code',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  };
  if (route.description !== undefined) result.description = route.description;
  if (route.access === 'admin') result['x-troupe-access'] = 'admin';
  const routeParameters = [...parameters(route), ...(resumable ? [LAST_EVENT_ID] : [])];
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
            properties: {
              [field]: { type: 'array', description, items: { type: 'string', format: 'binary' } },
            },
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
      content: Object.fromEntries(
        Object.entries(route.consumes).map(([mediaType, schema]) => [mediaType, { schema }]),
      ),
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

/**
 * OpenAPI 3.1 built from the route registry: every served route, and only those. `serverUrl` is where the
 * API is served (relative `/` when the server does not know its public address).
 */
export function buildOpenApiDocument(routes: readonly RegisteredRoute[], serverUrl = '/'): JsonObject {
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
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: {
        ...componentSchemas(),
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
