/**
 * Data requests index.html starts before the console's script has loaded (its inline script, for a
 * `/chat/{id}` page with a stored token): the conversation, its messages and its runs. On a phone's latency
 * that saves the round trips the script's download and start-up would otherwise put in front of them.
 */
export interface Prefetched {
  /** The token the requests were sent with: a response is adopted only by a client holding the same one. */
  token: string;
  /** By path (as the console's own requests spell it); each is taken once, then the path is fetched anew. */
  responses: Record<string, Promise<Response> | undefined>;
}

declare global {
  interface Window {
    __troupePrefetch?: Prefetched;
  }
}

/** The paths index.html prefetches for a conversation (kept in step with its inline script). */
export function prefetchedPaths(conversationId: string): string[] {
  const base = `/api/conversations/${encodeURIComponent(conversationId)}`;
  return [base, `${base}/messages`, `${base}/runs`];
}

/**
 * The prefetched response for a GET of `path` with `token`, once: the first caller adopts it, so a page's
 * data is requested once; later calls (a reload of the list, another token) fetch as usual.
 */
export function takePrefetched(
  path: string,
  token: string | null,
  source: { __troupePrefetch?: Prefetched } | undefined = typeof window === 'undefined' ? undefined : window,
): Promise<Response> | undefined {
  const prefetched = source?.__troupePrefetch;
  if (prefetched === undefined || token === null || prefetched.token !== token) return undefined;
  const response = prefetched.responses[path];
  delete prefetched.responses[path];
  return response;
}
