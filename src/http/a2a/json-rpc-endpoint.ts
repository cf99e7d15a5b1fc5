import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { Actor } from '../../core/records/user.js';
import type { AppEnv } from '../app-env.js';
import { readLimited } from '../body.js';
import { checkA2AParams, type ParamsViolation } from './check-a2a-params.js';

/** A2A 1.0 method names (JSON-RPC binding, spec §9.4), each with the parser of its params. */
const V1_METHODS = new Map<string, { fromJSON(params: unknown): unknown }>([
  ['SendMessage', SendMessageRequest],
  ['SendStreamingMessage', SendMessageRequest],
  ['GetTask', GetTaskRequest],
  ['ListTasks', ListTasksRequest],
  ['CancelTask', CancelTaskRequest],
  ['SubscribeToTask', SubscribeToTaskRequest],
  ['CreateTaskPushNotificationConfig', TaskPushNotificationConfig],
  ['GetTaskPushNotificationConfig', GetTaskPushNotificationConfigRequest],
  ['ListTaskPushNotificationConfigs', ListTaskPushNotificationConfigsRequest],
  ['DeleteTaskPushNotificationConfig', DeleteTaskPushNotificationConfigRequest],
  ['GetExtendedAgentCard', GetExtendedAgentCardRequest],
]);

/** The A2A 0.3 names still seen in the wild; answered in 0.3 shapes by the SDK's compat transport. */
const V03_METHODS = new Set([
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
]);

/** What a request without `A2A-Version` asks for (A2A 1.0 §3.6.2: an empty value is 0.3). */
const DEFAULT_VERSION = '0.3';

type JsonRpcId = string | number | null;

export interface JsonRpcEndpointOptions {
  c: Context<AppEnv>;
  actor: Actor;
  /** Builds the request handler once the envelope is valid; `signal` ends with the HTTP exchange. */
  handler: (signal: AbortSignal) => A2ARequestHandler;
  maxBodyBytes: number;
  heartbeatMs: number;
  /** The protocol versions this endpoint's card declares (Major.Minor). */
  versions: readonly string[];
}

function errorBody(id: JsonRpcId, code: number, message: string, data?: unknown[]) {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } };
}

/** `-32602` naming the field, with the `google.rpc.BadRequest` detail A2A's JSON-RPC binding suggests. */
function invalidParams(id: JsonRpcId, violation: ParamsViolation) {
  return errorBody(
    id,
    A2A_ERROR_CODE.INVALID_PARAMS,
    `Invalid params: ${violation.field}: ${violation.description}`,
    [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [violation] }],
  );
}

function isJsonRpcId(value: unknown): value is JsonRpcId {
  return (
    typeof value === 'string' || value === null || (typeof value === 'number' && Number.isInteger(value))
  );
}

/** `A2A-Version` as Major.Minor ('0.3' when absent or empty), or undefined when it is not a version. */
function requestedVersion(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return DEFAULT_VERSION;
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(header.trim());
  return match ? `${match[1]}.${match[2]}` : undefined;
}

/**
 * A method of the other protocol version is unknown in the one asked for: 0.3 has no `SendMessage`, 1.0 no
 * `message/send`. Said plainly, since the usual cause is a 1.0 client that sent no `A2A-Version` header.
 */
function wrongVersionMethod(method: string, version: string): string | undefined {
  if (version === '0.3' && V1_METHODS.has(method)) {
    return (
      `Method not found: ${method} is an A2A 1.0 method, and this request is read as A2A 0.3 ` +
      '(it has no A2A-Version header); send "A2A-Version: 1.0"'
    );
  }
  if (version === '1.0' && V03_METHODS.has(method))
    return `Method not found: ${method} is an A2A 0.3 method; with "A2A-Version: 1.0" use the 1.0 method names`;
  return undefined;
}

function paramsParse(parser: { fromJSON(params: unknown): unknown }, params: unknown): boolean {
  try {
    parser.fromJSON(params ?? {});
    return true;
  } catch {
    return false;
  }
}

type Envelope = { ok: true; request: Record<string, unknown>; id: JsonRpcId } | { ok: false; body: unknown };

/** Parse (-32700) and envelope (-32600) errors, before any method runs. */
async function readEnvelope(c: Context<AppEnv>, maxBodyBytes: number): Promise<Envelope> {
  const bytes = await readLimited(c.req.raw, maxBodyBytes);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, body: errorBody(null, A2A_ERROR_CODE.PARSE_ERROR, 'Invalid JSON payload') };
  }
  if (Array.isArray(value)) {
    return {
      ok: false,
      body: errorBody(
        null,
        A2A_ERROR_CODE.INVALID_REQUEST,
        'Batch requests are not supported; send one request object',
      ),
    };
  }
  if (typeof value !== 'object' || value === null) {
    return {
      ok: false,
      body: errorBody(
        null,
        A2A_ERROR_CODE.INVALID_REQUEST,
        'The request must be a JSON-RPC 2.0 request object',
      ),
    };
  }
  const request = value as Record<string, unknown>;
  const id = 'id' in request ? request.id : null;
  if (!isJsonRpcId(id)) {
    return {
      ok: false,
      body: errorBody(null, A2A_ERROR_CODE.INVALID_REQUEST, 'id must be a string, an integer or null'),
    };
  }
  if (request.jsonrpc !== '2.0' || typeof request.method !== 'string' || request.method === '') {
    return {
      ok: false,
      body: errorBody(
        id,
        A2A_ERROR_CODE.INVALID_REQUEST,
        'Request payload validation error: jsonrpc must be "2.0" and method a non-empty string',
      ),
    };
  }
  return { ok: true, request, id };
}

/**
 * One A2A JSON-RPC call (spec §9): the envelope is checked here so each failure has its own code, then the
 * SDK's transport for the method's protocol version parses the params, calls `handler` and serializes
 * the result — as JSON, or for streaming methods as SSE `data:` frames. JSON-RPC errors travel with
 * HTTP 200, as the binding expects.
 */
export async function answerJsonRpc(options: JsonRpcEndpointOptions): Promise<Response> {
  const { c, actor } = options;
  const envelope = await readEnvelope(c, options.maxBodyBytes);
  if (!envelope.ok) return c.json(envelope.body);
  const { request, id } = envelope;
  const method = request.method as string;
  const asked = c.req.header('A2A-Version') ?? c.req.query('A2A-Version');
  const version = requestedVersion(asked);
  if (version === undefined || !options.versions.includes(version)) {
    const supported = options.versions.join(', ');
    const what =
      asked === undefined || asked.trim() === ''
        ? 'A request without an A2A-Version header is A2A 0.3, which'
        : `A2A-Version ${asked}`;
    return c.json(
      errorBody(
        id,
        A2A_ERROR_CODE.VERSION_NOT_SUPPORTED,
        `${what} is not supported by this endpoint; it speaks A2A ${supported} (send "A2A-Version: ${options.versions[0] ?? '1.0'}")`,
      ),
    );
  }
  const misplaced = wrongVersionMethod(method, version);
  if (misplaced !== undefined) return c.json(errorBody(id, A2A_ERROR_CODE.METHOD_NOT_FOUND, misplaced));
  const legacy = V03_METHODS.has(method);
  const parser = V1_METHODS.get(method);
  if (!legacy && parser === undefined)
    return c.json(errorBody(id, A2A_ERROR_CODE.METHOD_NOT_FOUND, `Method not found: ${method}`));
  const violation = checkA2AParams(method, request.params);
  if (violation !== undefined) return c.json(invalidParams(id, violation));
  // The SDK parses params again; a value it cannot even parse (e.g. non-base64 bytes) is the client's fault.
  if (parser !== undefined && !paramsParse(parser, request.params)) {
    return c.json(
      errorBody(id, A2A_ERROR_CODE.INVALID_PARAMS, 'Invalid parameters: params do not match the method'),
    );
  }

  const controller = new AbortController();
  const abort = (): void => controller.abort();
  c.req.raw.signal.addEventListener('abort', abort, { once: true });
  const handler = options.handler(controller.signal);
  const context = new ServerCallContext({
    user: { isAuthenticated: true, userName: actor.id },
    requestedVersion: version,
  });
  const result = legacy
    ? await new LegacyJsonRpcTransportHandler(handler).handle(request, context)
    : await new JsonRpcTransportHandler(handler).handle(request, context);
  if (!(Symbol.asyncIterator in result)) {
    c.req.raw.signal.removeEventListener('abort', abort);
    return c.json(result);
  }
  const mapError = (error: unknown) =>
    legacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error)
      : JsonRpcTransportHandler.mapToJSONRPCError(error);
  const done = (): void => {
    c.req.raw.signal.removeEventListener('abort', abort);
    controller.abort();
  };

  // An error before the first event (unknown task, bad params) is a plain JSON-RPC answer, not a stream.
  let first: IteratorResult<unknown>;
  try {
    first = await result.next();
  } catch (error) {
    done();
    return c.json({ jsonrpc: '2.0', id, error: mapError(error) });
  }
  c.header('X-Accel-Buffering', 'no');
  c.header('Cache-Control', 'no-cache');
  return streamSSE(c, async (stream) => {
    stream.onAbort(abort);
    const heartbeat = setInterval(() => void stream.write(': heartbeat\n\n'), options.heartbeatMs);
    try {
      for (let next = first; !next.done && !controller.signal.aborted; next = await result.next()) {
        await stream.writeSSE({ data: JSON.stringify(next.value) });
      }
    } catch (error) {
      if (!controller.signal.aborted)
        await stream.writeSSE({ data: JSON.stringify({ jsonrpc: '2.0', id, error: mapError(error) }) });
    } finally {
      clearInterval(heartbeat);
      done();
      await result.return(undefined);
    }
  });
}
