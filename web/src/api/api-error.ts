/** An API failure with the server's stable `code` (or a client-side one: `network_error`, `bad_response`). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** The route is not on this server (yet): features built on it degrade instead of failing. */
export function isUnavailable(error: unknown): boolean {
  return (
    isApiError(error) && (error.status === 404 || error.status === 405) && error.code === 'route_not_found'
  );
}

/** `code: message`, what the console shows for any failure. */
export function describeError(error: unknown): { code: string; message: string } {
  if (isApiError(error)) return { code: error.code, message: error.message };
  if (error instanceof Error) return { code: 'client_error', message: error.message };
  return { code: 'client_error', message: String(error) };
}
