import type { FakeModelResponse } from './fake-model-server.js';

/*
 * Failures with the providers' real status, error type, code, headers and wording (as their APIs answer
 * them), for the fake servers to play: what the gateway classifies in production is what the tests meet.
 */

/** OpenAI Chat Completions errors. */
export const openaiFaults = {
  rateLimited: (retryAfterSeconds?: number): FakeModelResponse => ({
    error: {
      status: 429,
      type: 'requests',
      code: 'rate_limit_exceeded',
      message:
        'Rate limit reached for gpt-test in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.',
      headers: {
        ...(retryAfterSeconds !== undefined ? { 'retry-after': String(retryAfterSeconds) } : {}),
        'x-ratelimit-limit-requests': '3',
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '20s',
      },
    },
  }),
  insufficientQuota: (): FakeModelResponse => ({
    error: {
      status: 429,
      type: 'insufficient_quota',
      code: 'insufficient_quota',
      message:
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
    },
  }),
  serverError: (status = 500): FakeModelResponse => ({
    error: {
      status,
      type: 'server_error',
      message:
        'The server had an error while processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if the error persists.',
    },
  }),
  overloaded: (): FakeModelResponse => ({
    error: {
      status: 503,
      type: 'server_error',
      message: 'The engine is currently overloaded, please try again later.',
    },
  }),
  unauthorized: (): FakeModelResponse => ({
    error: {
      status: 401,
      type: 'invalid_request_error',
      code: 'invalid_api_key',
      message:
        'Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.',
    },
  }),
  notFound: (): FakeModelResponse => ({
    error: {
      status: 404,
      type: 'invalid_request_error',
      code: 'model_not_found',
      message: 'The model `gpt-test` does not exist or you do not have access to it.',
    },
  }),
  contextOverflow: (): FakeModelResponse => ({
    error: {
      status: 400,
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
    },
  }),
  /** An error chunk in the middle of a stream. */
  serverErrorMidStream: (afterChunks: number, text: string): FakeModelResponse => ({
    text,
    fault: {
      kind: 'stream_error',
      afterChunks,
      type: 'server_error',
      message: 'The server had an error while processing your request. Sorry about that!',
    },
  }),
};

/** Anthropic Messages errors. */
export const anthropicFaults = {
  rateLimited: (retryAfterSeconds?: number): FakeModelResponse => ({
    error: {
      status: 429,
      type: 'rate_limit_error',
      message:
        'Number of request tokens has exceeded your per-minute rate limit (https://docs.anthropic.com/en/api/rate-limits); see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.',
      headers: {
        ...(retryAfterSeconds !== undefined ? { 'retry-after': String(retryAfterSeconds) } : {}),
        'anthropic-ratelimit-input-tokens-limit': '40000',
        'anthropic-ratelimit-input-tokens-remaining': '0',
        'anthropic-ratelimit-input-tokens-reset': new Date(Date.now() + 20_000).toISOString(),
      },
    },
  }),
  overloaded: (): FakeModelResponse => ({
    error: { status: 529, type: 'overloaded_error', message: 'Overloaded' },
  }),
  serverError: (): FakeModelResponse => ({
    error: { status: 500, type: 'api_error', message: 'Internal server error' },
  }),
  unauthorized: (): FakeModelResponse => ({
    error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' },
  }),
  notFound: (): FakeModelResponse => ({
    error: { status: 404, type: 'not_found_error', message: 'model: claude-test' },
  }),
  contextOverflow: (): FakeModelResponse => ({
    error: {
      status: 400,
      type: 'invalid_request_error',
      message: 'prompt is too long: 210012 tokens > 200000 maximum',
    },
  }),
  /** `event: error` with `overloaded_error` in the middle of a stream, as Anthropic sends under load. */
  overloadedMidStream: (afterChunks: number, text: string): FakeModelResponse => ({
    text,
    fault: { kind: 'stream_error', afterChunks, type: 'overloaded_error', message: 'Overloaded' },
  }),
};
