import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { classifyModelError, type AttemptContext } from './model-error-class.js';

const FRESH: AttemptContext = { toolCallEmitted: false, streamStarted: false, timedOut: false };

function apiError(
  statusCode: number | undefined,
  body: unknown,
  headers: Record<string, string> = {},
  isRetryable?: boolean,
) {
  const message = (body as { error?: { message?: string } } | undefined)?.error?.message ?? 'failed';
  return new APICallError({
    message,
    url: 'http://127.0.0.1/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: JSON.stringify(body),
    data: body,
    ...(isRetryable !== undefined ? { isRetryable } : {}),
  });
}

function networkError(code: string): Error {
  const cause = Object.assign(new Error(`connect ${code} 127.0.0.1:9`), { code });
  return new TypeError('fetch failed', { cause });
}

describe('classifyModelError', () => {
  it.each([
    [429, 'rate_limited', true],
    [408, 'timeout', true],
    [409, 'conflict', true],
    [500, 'server_error', true],
    [502, 'server_error', true],
    [503, 'server_error', true],
    [504, 'server_error', true],
    [529, 'overloaded', true],
    [400, 'bad_request', false],
    [401, 'unauthorized', false],
    [403, 'unauthorized', false],
    [404, 'not_found', false],
    [422, 'bad_request', false],
  ])('HTTP %d is %s (retryable: %s)', (status, reason, retryable) => {
    const found = classifyModelError(apiError(status, { error: { message: 'x', type: 'x' } }), FRESH);
    expect(found).toMatchObject({ reason, retryable, status });
  });

  it("keeps the provider's message and headers, never the raw body", () => {
    const body = {
      error: {
        message: 'Rate limit reached for gpt-4o on requests per min (RPM): Limit 3, Used 3, Requested 1.',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    };
    const found = classifyModelError(apiError(429, body, { 'retry-after': '1' }), FRESH);
    expect(found.message).toBe(body.error.message);
    expect(found.headers).toEqual({ 'retry-after': '1' });
  });

  it('reads context overflow from OpenAI, Anthropic and compatible servers, whatever the status', () => {
    const openai = {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    };
    const anthropic = {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 210012 tokens > 200000 maximum' },
    };
    for (const body of [openai, anthropic]) {
      expect(classifyModelError(apiError(400, body), FRESH)).toMatchObject({
        reason: 'context_overflow',
        retryable: false,
      });
    }
  });

  it('an exhausted quota is final even as a 429', () => {
    const body = {
      error: {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    };
    expect(classifyModelError(apiError(429, body), FRESH)).toMatchObject({
      reason: 'quota_exhausted',
      retryable: false,
    });
  });

  it("reads an error event inside a stream by the provider's type", () => {
    expect(classifyModelError({ type: 'overloaded_error', message: 'Overloaded' }, FRESH)).toMatchObject({
      reason: 'overloaded',
      retryable: true,
      message: 'Overloaded',
    });
    expect(
      classifyModelError({ message: 'The server had an error', type: 'server_error', code: null }, FRESH),
    ).toMatchObject({ reason: 'server_error', retryable: true });
    expect(classifyModelError({ type: 'rate_limit_error', message: 'slow down' }, FRESH).reason).toBe(
      'rate_limited',
    );
  });

  it('network failures: a refused or reset connection before the stream, a cut stream after it started', () => {
    expect(classifyModelError(networkError('ECONNREFUSED'), FRESH)).toMatchObject({
      reason: 'connection',
      retryable: true,
    });
    const cut = new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(classifyModelError(cut, { ...FRESH, streamStarted: true })).toMatchObject({
      reason: 'stream_cut',
      retryable: true,
    });
    // A 200 whose body broke off: the SDK reports the status it had, the cut underneath.
    const broken = new APICallError({
      message: 'Failed to process successful response',
      url: 'http://127.0.0.1/v1/messages',
      requestBodyValues: {},
      statusCode: 200,
      cause: cut,
    });
    expect(classifyModelError(broken, { ...FRESH, streamStarted: true }).reason).toBe('stream_cut');
    // The SDK's own "Cannot connect to API" (retryable, no status).
    expect(classifyModelError(apiError(undefined, undefined, {}, true), FRESH).reason).toBe('connection');
  });

  it('an idle timeout is a timeout', () => {
    expect(classifyModelError(new Error('idle'), { ...FRESH, timedOut: true })).toMatchObject({
      reason: 'timeout',
      retryable: true,
    });
  });

  it('nothing is retried once the model emitted a tool call', () => {
    const cut = new TypeError('terminated');
    expect(
      classifyModelError(cut, { toolCallEmitted: true, streamStarted: true, timedOut: false }),
    ).toMatchObject({ reason: 'stream_cut', retryable: false });
  });

  it('anything else is final', () => {
    expect(classifyModelError(new Error('Invalid JSON response'), FRESH)).toMatchObject({
      reason: 'other',
      retryable: false,
    });
  });
});
