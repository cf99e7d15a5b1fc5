import type { Context } from 'hono';

function lastEntry(header: string | undefined): string | undefined {
  return header
    ?.split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .at(-1);
}

/**
 * The origin clients reach this server at, for the URLs inside agent cards: the request's own, or with
 * `trustProxy` the one the proxy in front reports (`X-Forwarded-Proto` / `X-Forwarded-Host`).
 */
export function requestOrigin(c: Context, trustProxy: boolean): string {
  const url = new URL(c.req.url);
  if (trustProxy) {
    const proto = lastEntry(c.req.header('x-forwarded-proto'));
    const host = lastEntry(c.req.header('x-forwarded-host'));
    if (proto === 'http' || proto === 'https') url.protocol = `${proto}:`;
    if (host !== undefined && /^[a-zA-Z0-9.:[\]-]+$/.test(host)) url.host = host;
  }
  return url.origin;
}
