import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CachedInput } from './fake-prompt-cache.js';

/** An HTTP error in the provider's error format (`{error: {message, type, code}}` or Anthropic's). */
export interface FakeError {
  status: number;
  message: string;
  /** The provider's error type (`rate_limit_error`, `overloaded_error`, `server_error`, …). */
  type?: string;
  /** OpenAI's error code (`rate_limit_exceeded`, `context_length_exceeded`, …). */
  code?: string;
  /** Response headers (`retry-after`, rate-limit headers). */
  headers?: Record<string, string>;
}

/**
 * A failure of the connection or of the stream, as real providers and networks produce them:
 * - `reset`: the connection is destroyed before any answer (the client sees a socket error);
 * - `cut`: the streamed answer stops after `afterChunks` frames and the connection is destroyed;
 * - `stall`: the stream goes quiet for `ms` after `afterChunks` frames (past a client's idle timeout);
 * - `stream_error`: after `afterChunks` frames, the provider's own error event (Anthropic `event: error`,
 *   an OpenAI `{"error": …}` chunk) and the end of the stream.
 */
export type FakeFault =
  | { kind: 'reset' }
  | { kind: 'cut'; afterChunks: number }
  | { kind: 'stall'; afterChunks: number; ms: number }
  | { kind: 'stream_error'; afterChunks: number; type: string; message: string };

/** One scripted reply of a fake provider server. */
export interface FakeModelResponse {
  text?: string;
  toolCalls?: { id?: string; name: string; args: Record<string, unknown> }[];
  /** Reported token usage; defaults to ceil(chars / 4) of the request messages and of the reply. */
  usage?: { inputTokens: number; outputTokens: number };
  /** Wait before answering (lets tests cancel an in-flight call, or stall before the headers). */
  delayMs?: number;
  /** Answer once this settles (a test's gate: the answer comes after the test did something, however slow). */
  until?: Promise<void>;
  /** Answer with this HTTP error instead, in the provider's error format. */
  error?: FakeError;
  /** Fail the connection or the stream this way (streamed requests; `reset` for any). */
  fault?: FakeFault;
  /**
   * The output limit stopped the reply: OpenAI's `finish_reason: "length"`, Anthropic's
   * `stop_reason: "max_tokens"`; the last tool call's arguments stop halfway, as a cut call's do.
   */
  truncated?: boolean;
}

/** A tool call's JSON arguments as the wire sends them: cut halfway when the output limit stopped the reply. */
export function wireArguments(args: Record<string, unknown>, cut: boolean): string {
  const text = JSON.stringify(args);
  return cut ? text.slice(0, Math.max(1, Math.floor(text.length / 2))) : text;
}

export type FakeResponses =
  FakeModelResponse[] | ((request: RecordedRequest, index: number) => FakeModelResponse);

export interface RecordedRequest {
  /** When it arrived (epoch ms). */
  at: number;
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
  /** The most requests it was answering at once (a provider's view of a client's concurrency). */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

export interface ReplyContext {
  request: RecordedRequest;
  response: FakeModelResponse;
  /** 1-based, for ids in the reply. */
  sequence: number;
  /** `inputTokens` counts every prompt token; the cache fields say how many of them the cache served or took. */
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
}

/** How one provider's wire format answers. */
export interface ProviderWire {
  /** The non-streaming answer's body. */
  json(context: ReplyContext): unknown;
  /** The streamed answer, frame by frame (each a complete SSE frame). */
  frames(context: ReplyContext): string[];
  /** The provider's error event inside a stream. */
  streamError(type: string, message: string): string;
  /** The provider's error body. */
  errorBody(error: Omit<FakeError, 'status' | 'headers'>): unknown;
}

export function defaultUsage(
  body: unknown,
  response: FakeModelResponse,
): { inputTokens: number; outputTokens: number } {
  const messages = (body as { messages?: unknown; system?: unknown; tools?: unknown } | null) ?? {};
  // Tool declarations are input like the rest of the prompt, as providers count them.
  const inputChars =
    JSON.stringify(messages.messages ?? []).length +
    JSON.stringify(messages.system ?? '').length +
    JSON.stringify(messages.tools ?? []).length;
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

function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function gone(res: ServerResponse): boolean {
  return res.destroyed || res.socket?.destroyed === true;
}

/** Waits `ms`, or less when the client goes away meanwhile. */
/** Resolves after `ms`, or once `until` settles, or when the client went away, whichever comes first. */
function waitUnlessGone(res: ServerResponse, ms: number | undefined, until?: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const timer = ms === undefined ? undefined : setTimeout(done, ms);
    res.once('close', done);
    until?.then(done, done);
    function done() {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
  });
}

/** Writes the streamed answer's frames, with the scripted fault where it strikes. */
async function playStream(
  res: ServerResponse,
  frames: string[],
  fault: FakeFault | undefined,
  wire: ProviderWire,
) {
  startSse(res);
  let written: Promise<void> = Promise.resolve();
  for (const [index, frame] of frames.entries()) {
    if (fault && fault.kind !== 'reset' && index === fault.afterChunks) {
      if (fault.kind === 'cut') {
        // What was written reaches the client first; then the connection breaks, as a dropped one does.
        await written;
        res.socket?.destroy();
        return;
      }
      if (fault.kind === 'stream_error') {
        res.end(wire.streamError(fault.type, fault.message));
        return;
      }
      await waitUnlessGone(res, fault.ms);
    }
    if (gone(res)) return;
    written = new Promise((resolve) => res.write(frame, () => resolve()));
  }
  res.end();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A real HTTP server on 127.0.0.1 with an ephemeral port. Requests to `endpoint` (matched by path suffix) are
 * recorded and answered in `wire`'s format with the next scripted response (its error or fault instead, when it
 * has one); everything else is a 404.
 */
export async function startFakeModelServer(options: {
  endpoint: string;
  responses: FakeResponses;
  wire: ProviderWire;
  /** The provider's own checks of a request (e.g. tool call pairing); a message means 400. */
  validate?: (body: RecordedBody) => string | undefined;
  /** The provider's prompt cache: how much of an answered request's input it read or wrote. */
  promptCache?: (body: RecordedBody) => CachedInput;
}): Promise<FakeModelServer> {
  const { wire } = options;
  const invalidRequest = (message: string) => wire.errorBody({ message, type: 'invalid_request_error' });
  const requests: RecordedRequest[] = [];
  let answered = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => (inFlight -= 1));
    void (async () => {
      const raw = await readBody(req);
      const path = req.url ?? '/';
      if (req.method !== 'POST' || !path.split('?')[0]?.endsWith(options.endpoint)) {
        sendJson(res, 404, invalidRequest(`fake server: no route for ${req.method} ${path}`));
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        sendJson(res, 400, invalidRequest('fake server: request body is not a JSON object'));
        return;
      }
      const request: RecordedRequest = {
        at: Date.now(),
        method: req.method,
        path,
        headers: req.headers,
        body: body as RecordedBody,
      };
      requests.push(request);
      // Refused before a scripted response is used, as a provider refuses before generating anything.
      const invalid = options.validate?.(request.body);
      if (invalid !== undefined) {
        sendJson(res, 400, invalidRequest(invalid));
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
          invalidRequest(`fake server: no scripted response left for request #${index + 1}`),
        );
        return;
      }
      if (response.delayMs || response.until) await waitUnlessGone(res, response.delayMs, response.until);
      // The client may have aborted while we waited.
      if (gone(res)) return;
      if (response.fault?.kind === 'reset') {
        req.socket.destroy();
        return;
      }
      if (response.error) {
        const { status, headers, ...error } = response.error;
        sendJson(res, status, wire.errorBody(error), headers);
        return;
      }
      const usage = response.usage ?? defaultUsage(body, response);
      const cache = options.promptCache?.(request.body) ?? { cacheReadTokens: 0, cacheWriteTokens: 0 };
      const cacheReadTokens = Math.min(cache.cacheReadTokens, usage.inputTokens);
      const context: ReplyContext = {
        request,
        response,
        sequence: index + 1,
        usage: {
          ...usage,
          cacheReadTokens,
          cacheWriteTokens: Math.min(cache.cacheWriteTokens, usage.inputTokens - cacheReadTokens),
        },
      };
      if (request.body.stream === true) await playStream(res, wire.frames(context), response.fault, wire);
      else sendJson(res, 200, wire.json(context));
    })().catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, invalidRequest(`fake server failed: ${String(error)}`));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
