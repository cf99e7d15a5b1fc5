import { APICallError } from '@ai-sdk/provider';

/**
 * Why a model call failed, as the gateway decides what to do next (docs/model-calls.md). The first group is
 * worth another attempt; the rest fail the call at once (`context_overflow` is its own reason so that
 * compaction can hook in).
 */
export const RETRYABLE_MODEL_ERROR_REASONS = [
  'rate_limited',
  'overloaded',
  'server_error',
  'timeout',
  'conflict',
  'connection',
  'stream_cut',
] as const;
export const FINAL_MODEL_ERROR_REASONS = [
  'context_overflow',
  'quota_exhausted',
  'unauthorized',
  'not_found',
  'bad_request',
  'other',
] as const;
export type ModelErrorReason =
  (typeof RETRYABLE_MODEL_ERROR_REASONS)[number] | (typeof FINAL_MODEL_ERROR_REASONS)[number];

export interface ModelErrorClass {
  reason: ModelErrorReason;
  retryable: boolean;
  /** The HTTP status of the provider's answer, when there was one. */
  status?: number;
  /** The provider's own message (never the raw response body). */
  message: string;
  /** The provider's response headers, for how long it asked to wait (`providerWaitMs`). */
  headers?: Record<string, string>;
}

/** What a failed attempt looked like when it failed. */
export interface AttemptContext {
  /** The model had already emitted a tool call: a retry could not promise the same calls. */
  toolCallEmitted: boolean;
  /** Some of the response had arrived (a failure now is a cut stream, not a refused connection). */
  streamStarted: boolean;
  /** The attempt was ended by the gateway's idle timeout. */
  timedOut: boolean;
}

/** Network failures Node's fetch (undici) and the AI SDK report, found on an error or its causes. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ConnectionRefused',
  'ConnectionClosed',
  'FailedToOpenSocket',
]);

/** How providers word a prompt that does not fit the model's context window. */
const CONTEXT_OVERFLOW = [
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /prompt is too long/i,
  /exceeds? (the )?(model'?s? )?context (window|limit|length)/i,
  /input length and `?max_tokens`? exceed context limit/i,
  /too many tokens/i,
  /reduce the length of the messages/i,
];

interface ProviderError {
  type?: string;
  code?: string;
  message?: string;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `{type, code, message}` of a provider's error object: `{error: {...}}` (OpenAI, Anthropic) or bare. */
function providerError(value: unknown): ProviderError | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const inner = record.error;
  if (typeof inner === 'object' && inner !== null) {
    const nested = providerError(inner);
    if (nested) return nested;
  }
  const found: ProviderError = {};
  const type = text(record.type);
  const code = text(record.code) ?? (typeof record.code === 'number' ? String(record.code) : undefined);
  const message = text(record.message);
  if (type !== undefined && type !== 'error') found.type = type;
  if (code !== undefined) found.code = code;
  if (message !== undefined) found.message = message;
  return (found.type ?? found.code ?? found.message) ? found : undefined;
}

function networkCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    // undici ends a body that stopped mid-way with `TypeError: terminated` (cause: "other side closed").
    if (current instanceof TypeError && /^terminated$/i.test(current.message)) return 'UND_ERR_SOCKET';
  }
  return undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  const provider = providerError(error);
  if (provider?.message) return provider.message;
  return typeof error === 'string' ? error : 'unknown error';
}

function byStatus(status: number, provider: ProviderError | undefined, message: string): ModelErrorReason {
  if (status === 429) return 'rate_limited';
  if (status === 529 || provider?.type === 'overloaded_error') return 'overloaded';
  if (status === 408) return 'timeout';
  if (status === 409) return 'conflict';
  if (status >= 500) return /overloaded/i.test(message) ? 'overloaded' : 'server_error';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  return 'bad_request';
}

/** A provider's error object that came without a status (an error event inside a stream). */
function byProviderType(provider: ProviderError | undefined): ModelErrorReason | undefined {
  const kind = `${provider?.type ?? ''} ${provider?.code ?? ''}`;
  if (kind.includes('rate_limit')) return 'rate_limited';
  if (kind.includes('overloaded')) return 'overloaded';
  if (/\b(api_error|server_error|internal_server_error|service_unavailable)\b/.test(kind))
    return 'server_error';
  if (kind.includes('timeout')) return 'timeout';
  if (/authentication|permission|invalid_api_key/.test(kind)) return 'unauthorized';
  if (kind.includes('not_found')) return 'not_found';
  if (kind.includes('invalid_request')) return 'bad_request';
  return undefined;
}

const RETRYABLE: ReadonlySet<ModelErrorReason> = new Set(RETRYABLE_MODEL_ERROR_REASONS);

/**
 * Classifies one failed attempt: by the status of the provider's answer, by its error type or code
 * (`overloaded_error`, `rate_limit_exceeded`, `insufficient_quota`, `context_length_exceeded`…) and wording,
 * or by the network failure underneath. A retryable failure after the model emitted a tool call is final:
 * another attempt could answer with other calls.
 */
export function classifyModelError(error: unknown, context: AttemptContext): ModelErrorClass {
  const api = APICallError.isInstance(error) ? error : undefined;
  const provider = providerError(api?.data) ?? providerError(error);
  const message = provider?.message ?? describe(error);
  const status = api?.statusCode;
  const headers = api?.responseHeaders;
  const wording = `${provider?.type ?? ''} ${provider?.code ?? ''} ${message}`;
  let reason: ModelErrorReason;
  if (context.timedOut) reason = 'timeout';
  else if (CONTEXT_OVERFLOW.some((pattern) => pattern.test(wording))) reason = 'context_overflow';
  else if (/insufficient_quota|exceeded your current quota|credit balance is too low/i.test(wording))
    reason = 'quota_exhausted';
  // A 2xx answer that failed while its body was read ("Failed to process successful response") is a cut.
  else if (status !== undefined && status >= 400) reason = byStatus(status, provider, message);
  else if (networkCode(error) !== undefined) reason = context.streamStarted ? 'stream_cut' : 'connection';
  else reason = byProviderType(provider) ?? (api?.isRetryable === true ? 'connection' : 'other');
  const retryable = RETRYABLE.has(reason) && !context.toolCallEmitted;
  return {
    reason,
    retryable,
    ...(status !== undefined ? { status } : {}),
    message,
    ...(headers ? { headers } : {}),
  };
}
