/**
 * `fetch` that adds a remote expert's credentials to requests for the card's own origin only: a card may
 * name another host as its endpoint, and a stored secret must never follow it there.
 */
export function withCredentials(
  base: typeof fetch,
  cardUrl: string,
  headers: Record<string, string>,
): typeof fetch {
  const origin = new URL(cardUrl).origin;
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin || Object.keys(headers).length === 0) return base(input, init);
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return base(input, { ...init, headers: merged });
  };
}
