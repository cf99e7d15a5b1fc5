import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { EgressPolicy, EgressVerdict } from '../../core/egress/egress-policy.js';
import { TroupeError } from '../../core/errors.js';

export type Resolver = (hostname: string, options: LookupOptions & { all: true }) => Promise<LookupAddress[]>;

export interface EgressFetchOptions {
  policy: EgressPolicy;
  /** DNS; the system resolver by default (tests pass a fake one to play a rebinding DNS server). */
  resolve?: Resolver;
}

/** A `fetch` that only reaches what the policy allows; `close` drops its pooled connections. */
export interface EgressFetch {
  fetch: typeof fetch;
  close(): void;
}

const systemResolve: Resolver = (hostname, options) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, options, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

export function egressDenied(verdict: Exclude<EgressVerdict, { allowed: true }>): TroupeError {
  return new TroupeError(
    'egress_denied',
    `egress_denied: ${verdict.reason}; agents of non-admin users may not reach it (an admin can allow it with TROUPE_EGRESS_ALLOW)`,
    {
      details: { range: verdict.range },
    },
  );
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function toResponse(message: http.IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let index = 0; index + 1 < message.rawHeaders.length; index += 2) {
    headers.append(message.rawHeaders[index] ?? '', message.rawHeaders[index + 1] ?? '');
  }
  const status = message.statusCode ?? 502;
  const nullBody = NULL_BODY_STATUSES.has(status) || method === 'HEAD';
  if (nullBody) message.resume();
  const body = nullBody ? null : (Readable.toWeb(message) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: message.statusMessage ?? '', headers });
}

/**
 * `fetch` for outbound calls a non-admin controls (docs/egress-and-secrets.md), over node:http so the connection can be
 * pinned: the URL's host is checked as written, then its own `lookup` resolves the name, checks every
 * address and hands exactly those addresses to the socket, so the address that was checked is the one
 * connected to (no second DNS answer in between). Redirects are never followed here: the caller gets the
 * 3xx, and a redirect it follows is a new call, checked again. Pooled sockets belong to this instance
 * only, so a socket opened under another policy is never reused.
 */
export function createEgressFetch(options: EgressFetchOptions): EgressFetch {
  const { policy } = options;
  const resolve = options.resolve ?? systemResolve;
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname, { family: lookupOptions.family, hints: lookupOptions.hints, all: true }).then(
      (addresses) => {
        const refused = addresses
          .map((entry) => policy.checkAddress(hostname, entry.address))
          .find((verdict) => !verdict.allowed);
        if (refused && !refused.allowed) return callback(egressDenied(refused), '', 0);
        const first = addresses[0];
        if (!first)
          return callback(
            Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
        // Node's connect asks for every address when it races IPv4 and IPv6 (autoSelectFamily).
        if (lookupOptions.all)
          return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
        return callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };

  async function egressFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const verdict = policy.checkUrl(url);
    if (verdict !== 'resolve' && !verdict.allowed) throw egressDenied(verdict);
    request.signal.throwIfAborted();
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const secure = url.protocol === 'https:';
    return new Promise<Response>((resolveResponse, reject) => {
      const outgoing = (secure ? https : http).request(url, {
        method: request.method,
        headers,
        agent: secure ? agents.https : agents.http,
        lookup,
        signal: request.signal,
      });
      outgoing.once('response', (message) => resolveResponse(toResponse(message, request.method)));
      outgoing.once('error', reject);
      outgoing.end(body);
    });
  }

  return {
    fetch: egressFetch,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
