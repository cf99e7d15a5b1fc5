import { request } from 'node:http';
import { serve, type ServerType } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { clientKey } from './client-address.js';

let ctx: TestContext | undefined;
let server: ServerType | undefined;
afterEach(async () => {
  if (server && 'closeAllConnections' in server) server.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await ctx?.close();
  server = undefined;
  ctx = undefined;
});

/** The app on a real socket, so the client address is the socket's peer. */
async function start(trustProxy = false): Promise<{ port: number; user: TestUser }> {
  ctx = await createTestContext({ config: { authFailureLimit: 3, authFailureWindowMs: 60_000, trustProxy } });
  const user = await ctx.createUser('alice');
  const app = ctx.app;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(info.port));
  });
  return { port, user };
}

interface Answer {
  status: number;
  retryAfter: string | undefined;
  code: string | undefined;
}

/** GET /api/me from a chosen loopback source address (Linux routes all of 127/8 to the loopback device). */
function me(
  port: number,
  from: string,
  token?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/me',
        localAddress: from,
        agent: false,
        headers: { ...headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          const parsed = JSON.parse(body) as { error?: { code: string } };
          const retryAfter = response.headers['retry-after'];
          resolve({ status: response.statusCode ?? 0, retryAfter, code: parsed.error?.code });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const BAD = 'trp_guessed-token-that-does-not-exist';

describe('failed authentication is throttled per client address (docs/egress-and-secrets.md)', () => {
  it('answers 429 with Retry-After once an address has failed too often, and only that address', async () => {
    const { port, user } = await start();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(await me(port, '127.0.0.1', BAD)).toMatchObject({ status: 401, code: 'unauthorized' });
    }
    const blocked = await me(port, '127.0.0.1', BAD);
    expect(blocked).toMatchObject({ status: 429, code: 'too_many_requests' });
    const seconds = Number(blocked.retryAfter);
    expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60).toBe(true);
    // The blocked address is held back even with a good token: otherwise the answer would still tell a
    // right guess from a wrong one.
    expect((await me(port, '127.0.0.1', user.token)).status).toBe(429);
    // Another address is untouched by those failures, and counts its own.
    expect(await me(port, '127.0.0.2', user.token)).toMatchObject({ status: 200 });
    expect(await me(port, '127.0.0.2', BAD)).toMatchObject({ status: 401 });
    expect(await me(port, '127.0.0.3', user.token)).toMatchObject({ status: 200 });
  });

  it('does not count requests without a token', async () => {
    const { port, user } = await start();
    for (let attempt = 0; attempt < 6; attempt += 1) expect((await me(port, '127.0.0.1')).status).toBe(401);
    expect((await me(port, '127.0.0.1', user.token)).status).toBe(200);
  });

  it('ignores X-Forwarded-For unless TROUPE_TRUST_PROXY is set', async () => {
    const { port } = await start(false);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await me(port, '127.0.0.1', BAD, { 'x-forwarded-for': `198.51.100.${attempt}` });
    }
    expect((await me(port, '127.0.0.1', BAD, { 'x-forwarded-for': '198.51.100.99' })).status).toBe(429);
  });

  it('throttles by the address the proxy appended when TROUPE_TRUST_PROXY is set', async () => {
    const { port, user } = await start(true);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await me(port, '127.0.0.1', BAD, { 'x-forwarded-for': 'spoofed, 203.0.113.7' });
    }
    expect((await me(port, '127.0.0.1', BAD, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(429);
    expect(
      (await me(port, '127.0.0.1', user.token, { 'x-forwarded-for': '203.0.113.7, 203.0.113.8' })).status,
    ).toBe(200);
  });
});

describe('clientKey', () => {
  it('keys IPv4 (also IPv4-mapped) by address and IPv6 by its /64', () => {
    expect(clientKey('127.0.0.1')).toBe('127.0.0.1');
    expect(clientKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(clientKey('unknown')).toBe('unknown');
  });
});
