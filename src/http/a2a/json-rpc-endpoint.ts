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

const SUPPORTED_VERSIONS = new Set(['1.0', '0.3']);

type JsonRpcId = string | number | null;

export interface JsonRpcEndpointOptions {
  c: Context<AppEnv>;
  actor: Actor;
  /** Builds the request handler once the envelope is valid; `signal` ends with the HTTP exchange. */
  handler: (signal: AbortSignal) => A2ARequestHandler;
  maxBodyBytes: number;
  heartbeatMs: number;
}

function errorBody(id: JsonRpcId, code: number, message: string) {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function isJsonRpcId(value: unknown): value is JsonRpcId {
  return (
    typeof value === 'string' || value === null || (typeof value === 'number' && Number.isInteger(value))
  );
}

/** `A2A-Version` as Major.Minor ('0.3' when absent, spec §3.6.2), or undefined when unsupported. */
function requestedVersion(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return '0.3';
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(header.trim());
  const version = match ? `${match[1]}.${match[2]}` : undefined;
  return version !== undefined && SUPPORTED_VERSIONS.has(version) ? version : undefined;
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
  if (version === undefined) {
    return c.json(
      errorBody(
        id,
        A2A_ERROR_CODE.VERSION_NOT_SUPPORTED,
        `A2A-Version ${asked ?? ''} is not supported; use 1.0 or 0.3`,
      ),
    );
  }
  const legacy = V03_METHODS.has(method);
  const parser = V1_METHODS.get(method);
  if (!legacy && parser === undefined)
    return c.json(errorBody(id, A2A_ERROR_CODE.METHOD_NOT_FOUND, `Method not found: ${method}`));
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
