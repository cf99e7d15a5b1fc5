import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { embeddedIpv4 } from '../core/egress/classify-address.js';
import { formatIpAddress, parseIpAddress } from '../core/egress/ip-address.js';

/**
 * The key a client is throttled by: its IPv4 address (also when it arrives IPv4-mapped), or the /64 of
 * its IPv6 address, since one IPv6 host usually holds a whole /64 and could otherwise rotate through it.
 */
export function clientKey(address: string): string {
  const parsed = parseIpAddress(address);
  if (!parsed) return address;
  const v4 = embeddedIpv4(parsed);
  if (parsed.version === 4 || v4) return formatIpAddress(v4 ?? parsed);
  const prefix = new Uint8Array(16);
  prefix.set(parsed.bytes.slice(0, 8));
  return `${formatIpAddress({ version: 6, bytes: prefix })}/64`;
}

/**
 * The address the request came from: the socket's peer, or with `trustProxy` the last `X-Forwarded-For`
 * entry, the one the proxy in front of Troupe appended (earlier entries are whatever the client sent).
 * `unknown` when there is no socket (in-process requests).
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for');
    const last = forwarded
      ?.split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
      .at(-1);
    if (last !== undefined) return last;
  }
  const bindings = c.env as { incoming?: IncomingMessage } | undefined;
  return bindings?.incoming?.socket.remoteAddress ?? 'unknown';
}
