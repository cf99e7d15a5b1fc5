import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted reply of a fake provider server. */
export interface FakeModelResponse {
  text?: string;
  toolCalls?: { id?: string; name: string; args: Record<string, unknown> }[];
  /** Reported token usage; defaults to ceil(chars / 4) of the request messages and of the reply. */
  usage?: { inputTokens: number; outputTokens: number };
  /** Wait before answering (lets tests cancel an in-flight call). */
  delayMs?: number;
  /** Answer with this HTTP error instead, in the provider's error format. */
  error?: { status: number; message: string };
}

export type FakeResponses =
  FakeModelResponse[] | ((request: RecordedRequest, index: number) => FakeModelResponse);

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: RecordedBody;
}

/** A parsed JSON request body: the fields the fakes read are typed; tests narrow the rest (e.g. with zod). */
export interface RecordedBody {
  model?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
  messages?: unknown;
  tools?: unknown;
  [key: string]: unknown;
}

export interface FakeModelServer {
  /** Base URL including `/v1`, ready for `baseURL` settings. */
  baseURL: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface ReplyContext {
  request: RecordedRequest;
  response: FakeModelResponse;
  /** 1-based, for ids in the reply. */
  sequence: number;
  res: ServerResponse;
  usage: { inputTokens: number; outputTokens: number };
}

export function defaultUsage(
  body: unknown,
  response: FakeModelResponse,
): { inputTokens: number; outputTokens: number } {
  const messages = (body as { messages?: unknown; system?: unknown } | null) ?? {};
  const inputChars =
    JSON.stringify(messages.messages ?? []).length + JSON.stringify(messages.system ?? '').length;
  const outputChars =
    (response.text ?? '').length +
    (response.toolCalls ?? []).reduce(
      (sum, call) => sum + call.name.length + JSON.stringify(call.args).length,
      0,
    );
  return { inputTokens: Math.ceil(inputChars / 4), outputTokens: Math.ceil(outputChars / 4) };
}

/** Splits a string into `count` roughly equal pieces, so streamed deltas really arrive in several parts. */
export function splitInto(text: string, count: number): string[] {
  if (text === '') return [];
  const size = Math.max(1, Math.ceil(text.length / count));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A real HTTP server on 127.0.0.1 with an ephemeral port. Requests to `endpoint` (matched by path suffix) are
 * recorded and answered by `reply` with the next scripted response; everything else is a 404.
 */
export async function startFakeModelServer(options: {
  endpoint: string;
  responses: FakeResponses;
  reply: (context: ReplyContext) => void;
  errorBody: (message: string) => unknown;
  /** The provider's own checks of a request (e.g. tool call pairing); a message means 400. */
  validate?: (body: RecordedBody) => string | undefined;
}): Promise<FakeModelServer> {
  const requests: RecordedRequest[] = [];
  let answered = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = req.url ?? '/';
      if (req.method !== 'POST' || !path.split('?')[0]?.endsWith(options.endpoint)) {
        sendJson(res, 404, options.errorBody(`fake server: no route for ${req.method} ${path}`));
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        sendJson(res, 400, options.errorBody('fake server: request body is not a JSON object'));
        return;
      }
      const request: RecordedRequest = {
        method: req.method,
        path,
        headers: req.headers,
        body: body as RecordedBody,
      };
      requests.push(request);
      // Refused before a scripted response is used, as a provider refuses before generating anything.
      const invalid = options.validate?.(request.body);
      if (invalid !== undefined) {
        sendJson(res, 400, options.errorBody(invalid));
        return;
      }
      const index = answered++;
      const response = Array.isArray(options.responses)
        ? options.responses[index]
        : options.responses(request, index);
      if (!response) {
        // 400, not 5xx: the SDK retries 5xx with backoff, which would only slow the failing test down.
        sendJson(
          res,
          400,
          options.errorBody(`fake server: no scripted response left for request #${index + 1}`),
        );
        return;
      }
      if (response.delayMs) await new Promise((resolve) => setTimeout(resolve, response.delayMs));
      // The client may have aborted while we waited.
      if (res.destroyed || res.socket?.destroyed === true) return;
      if (response.error) {
        sendJson(res, response.error.status, options.errorBody(response.error.message));
        return;
      }
      options.reply({
        request,
        response,
        sequence: index + 1,
        res,
        usage: response.usage ?? defaultUsage(body, response),
      });
    })().catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, options.errorBody(`fake server failed: ${String(error)}`));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
