/**
 * Data requests index.html starts before the console's script has loaded (its first inline script, with a
 * stored token): on a `/chat` page the conversation, its messages and runs, then what the rest of the page
 * reads (the user, the conversation list, the limits, the side panel's lists, the conversation's agent); on
 * any other page the user. On a phone's latency that saves the round trips the script's download and start-up
 * would otherwise put in front of them.
 */
export interface Prefetched {
  /** The token the requests were sent with: a response is adopted only by a client holding the same one. */
  token: string;
  /** By path (as the console's own requests spell it); each is taken once, then the path is fetched anew. */
  responses: Record<string, Promise<Response> | undefined>;
  /**
   * The JSON of each successful response once read, by path, while not taken: the first render shows it
   * without waiting a turn for the promise (every turn is a render and a layout more on a slow phone).
   */
  bodies?: Record<string, unknown>;
}

declare global {
  interface Window {
    __troupePrefetch?: Prefetched;
  }
}

type Source = { __troupePrefetch?: Prefetched } | undefined;
const windowSource = (): Source => (typeof window === 'undefined' ? undefined : window);

/**
 * The paths index.html prefetches, in its order (kept in step with its inline script); the agent's path is
 * known only from the conversation's answer.
 */
export function prefetchedPaths(conversationId: string | null): string[] {
  const shared = ['/api/me', '/api/conversations?status=active', '/api/limits'];
  if (conversationId === null) return shared;
  const base = `/api/conversations/${encodeURIComponent(conversationId)}`;
  return [base, `${base}/messages`, `${base}/runs`, ...shared, `${base}/subagents`, `${base}/artifacts`];
}

function prefetchedFor(token: string | null, source: Source): Prefetched | undefined {
  const prefetched = source?.__troupePrefetch;
  if (prefetched === undefined || token === null || prefetched.token !== token) return undefined;
  return prefetched;
}

/**
 * The prefetched response for a GET of `path` with `token`, once: the first caller adopts it, so a page's
 * data is requested once; later calls (a reload of the list, another token) fetch as usual.
 */
export function takePrefetched(
  path: string,
  token: string | null,
  source: Source = windowSource(),
): Promise<Response> | undefined {
  const prefetched = prefetchedFor(token, source);
  if (prefetched === undefined) return undefined;
  const response = prefetched.responses[path];
  delete prefetched.responses[path];
  if (prefetched.bodies) delete prefetched.bodies[path];
  return response;
}

/**
 * The JSON of the prefetched answer to a GET of `path` with `token` if it has already arrived (a success),
 * taken like `takePrefetched`; undefined otherwise, the response (if any) left for `takePrefetched`.
 */
export function takePrefetchedBody(
  path: string,
  token: string | null,
  source: Source = windowSource(),
): unknown {
  const prefetched = prefetchedFor(token, source);
  if (prefetched?.bodies === undefined || !(path in prefetched.bodies)) return undefined;
  const body = prefetched.bodies[path];
  // Its body was read from a copy; the response itself is no longer anyone's.
  void takePrefetched(path, token, source);
  return body;
}
