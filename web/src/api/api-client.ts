import { ApiError } from './api-error.ts';
import { takePrefetched, takePrefetchedBody } from './prefetched-responses.ts';
import type { ApiErrorBody } from './types.ts';

export interface ApiClientOptions {
  /** Origin of the server; empty for the console served by the server itself. */
  baseUrl?: string;
  getToken: () => string | null;
  /** A 401 on any call: the console goes back to the login page. */
  onUnauthorized: () => void;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface ApiClient {
  readonly baseUrl: string;
  request: <T>(method: string, path: string, options?: RequestOptions) => Promise<T>;
  /** A raw authorised fetch (SSE): the caller reads the body. 401 still goes to `onUnauthorized`. */
  raw: (path: string, init?: RequestInit) => Promise<Response>;
  /**
   * The answer to a GET of `path` that index.html has already received and read, once (see
   * prefetched-responses.ts); undefined when there is none yet: then `request` it as usual.
   */
  prefetched: <T>(path: string) => T | undefined;
  token: () => string | null;
  unauthorized: () => void;
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  if (typeof value !== 'object' || value === null || !('error' in value)) return false;
  const error = value.error;
  return typeof error === 'object' && error !== null && 'code' in error && 'message' in error;
}

/** Turns a non-2xx response into an `ApiError` carrying the server's code. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch {
    parsed = undefined;
  }
  if (isErrorBody(parsed)) {
    return new ApiError(response.status, parsed.error.code, parsed.error.message, parsed.error.details);
  }
  return new ApiError(response.status, `http_${response.status}`, response.statusText || 'Request failed');
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const baseUrl = options.baseUrl ?? '';
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  function authHeaders(extra: HeadersInit | undefined): Headers {
    const headers = new Headers(extra);
    const token = options.getToken();
    if (token !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
    return headers;
  }

  async function raw(path: string, init: RequestInit = {}): Promise<Response> {
    let response: Response;
    try {
      // A GET index.html already started (same path, same token) is adopted, not sent twice; its errors
      // take the same path as a request of our own.
      const prefetched =
        (init.method ?? 'GET') === 'GET' && baseUrl === ''
          ? takePrefetched(path, options.getToken())
          : undefined;
      response = await (prefetched ??
        doFetch(`${baseUrl}${path}`, { ...init, headers: authHeaders(init.headers) }));
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new ApiError(0, 'network_error', error instanceof Error ? error.message : 'Network error');
    }
    if (response.status === 401) options.onUnauthorized();
    return response;
  }

  async function request<T>(method: string, path: string, requestOptions: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...requestOptions.headers };
    let body: string | undefined;
    if (requestOptions.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(requestOptions.body);
    }
    const response = await raw(path, { method, headers, body, signal: requestOptions.signal });
    if (!response.ok) throw await errorFromResponse(response);
    if (response.status === 204) return undefined as T;
    try {
      return (await response.json()) as T;
    } catch {
      throw new ApiError(response.status, 'bad_response', `Expected JSON from ${method} ${path}`);
    }
  }

  const prefetched = <T>(path: string): T | undefined =>
    baseUrl === '' ? (takePrefetchedBody(path, options.getToken()) as T | undefined) : undefined;

  return {
    baseUrl,
    request,
    raw,
    prefetched,
    token: () => options.getToken(),
    unauthorized: () => options.onUnauthorized(),
  };
}
