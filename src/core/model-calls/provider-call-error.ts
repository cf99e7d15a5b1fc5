/**
 * A model call the provider failed, as the models adapter reports it (docs/model-calls.md#classification): the
 * status, headers and error body of its answer, if it answered, for `classifyModelError` to read. The SDK's
 * own error is its `cause`, so core never depends on the SDK's error types.
 */
export class ProviderCallError extends Error {
  readonly statusCode: number | undefined;
  readonly responseHeaders: Record<string, string> | undefined;
  /** The provider's error body, parsed. */
  readonly data: unknown;
  /** Whether the SDK would have retried it (a connection that failed before any answer). */
  readonly isRetryable: boolean;

  constructor(
    message: string,
    answer: {
      statusCode?: number;
      responseHeaders?: Record<string, string>;
      data?: unknown;
      isRetryable?: boolean;
      cause?: unknown;
    },
  ) {
    super(message, { cause: answer.cause });
    this.name = 'ProviderCallError';
    this.statusCode = answer.statusCode;
    this.responseHeaders = answer.responseHeaders;
    this.data = answer.data;
    this.isRetryable = answer.isRetryable ?? false;
  }
}
