import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEgressPolicy } from '../../core/egress/egress-policy.js';
import { isTroupeError } from '../../core/errors.js';
import { createEgressFetch, type EgressFetch, type Resolver } from './create-egress-fetch.js';

interface Loopback {
  port: number;
  requests: { url: string; host: string | undefined; body: string }[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records what reaches it. */
async function startLoopback(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Loopback> {
  const requests: Loopback['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        url: req.url ?? '',
        host: req.headers.host,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A DNS that answers from a script, one answer per lookup (the last one repeats): a rebinding server. */
function scriptedDns(answers: string[][]): { resolve: Resolver; lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    resolve: (hostname) => {
      lookups.push(hostname);
      const answer = answers[Math.min(lookups.length - 1, answers.length - 1)] ?? [];
      return Promise.resolve(answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    },
  };
}

let target: Loopback;
let guarded: EgressFetch | undefined;
beforeEach(async () => {
  target = await startLoopback((_req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.setHeader('x-reply', 'yes');
    // Every request on a fresh socket, so every request resolves (and is checked) again.
    res.setHeader('connection', 'close');
    res.end('internal secret page');
  });
});
afterEach(async () => {
  guarded?.close();
  guarded = undefined;
  await target.close();
});

const denied = (error: unknown) => isTroupeError(error, 'egress_denied');

describe('createEgressFetch (default policy: nothing private)', () => {
  it.each(['127.0.0.1', '2130706433', '0x7f.1', '0177.0.0.1', '127.1', '[::ffff:127.0.0.1]', 'localhost'])(
    'refuses http://%s before anything is sent',
    async (host) => {
      guarded = createEgressFetch({ policy: createEgressPolicy() });
      await expect(
        guarded.fetch(`http://${host}:${target.port}/mcp`, { method: 'POST', body: '{}' }),
      ).rejects.toSatisfy(denied);
      expect(target.requests).toEqual([]);
    },
  );

  it('refuses a name whose address is private, without connecting', async () => {
    const dns = scriptedDns([['127.0.0.1']]);
    guarded = createEgressFetch({ policy: createEgressPolicy(), resolve: dns.resolve });
    const failure = await guarded
      .fetch(`http://innocent.example:${target.port}/`)
      .catch((error: unknown) => error);
    expect(denied(failure)).toBe(true);
    expect((failure as Error).message).toContain('innocent.example resolves to a loopback address');
    expect((failure as Error).message).not.toContain('127.0.0.1');
    expect(dns.lookups).toEqual(['innocent.example']);
    expect(target.requests).toEqual([]);
  });

  it('refuses when any one of the addresses is private', async () => {
    const dns = scriptedDns([['127.0.0.1', '10.0.0.1']]);
    guarded = createEgressFetch({ policy: createEgressPolicy(['127.0.0.1']), resolve: dns.resolve });
    await expect(guarded.fetch(`http://mixed.example:${target.port}/`)).rejects.toSatisfy(denied);
    expect(target.requests).toEqual([]);
  });

  it('refuses schemes other than http and https', async () => {
    guarded = createEgressFetch({ policy: createEgressPolicy() });
    await expect(guarded.fetch('file:///etc/passwd')).rejects.toThrow();
  });
});

describe('createEgressFetch with TROUPE_EGRESS_ALLOW', () => {
  it('reaches an allowed address, with method, body, status and headers intact', async () => {
    guarded = createEgressFetch({ policy: createEgressPolicy(['127.0.0.1']) });
    const response = await guarded.fetch(`http://127.0.0.1:${target.port}/mcp?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer s3cret' },
      body: '{"hello":1}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-reply')).toBe('yes');
    expect(await response.text()).toBe('internal secret page');
    expect(target.requests).toEqual([
      { url: '/mcp?x=1', host: `127.0.0.1:${target.port}`, body: '{"hello":1}' },
    ]);
  });

  it('connects to the address it checked and checks again on every new connection (DNS rebinding)', async () => {
    // First answer: the allowed loopback address; then the DNS "rebinds" the name to another address.
    const dns = scriptedDns([['127.0.0.1'], ['127.0.0.2']]);
    guarded = createEgressFetch({ policy: createEgressPolicy(['127.0.0.1']), resolve: dns.resolve });
    const first = await guarded.fetch(`http://rebind.example:${target.port}/one`);
    expect(await first.text()).toBe('internal secret page');
    expect(target.requests.map((request) => request.host)).toEqual([`rebind.example:${target.port}`]);
    await expect(guarded.fetch(`http://rebind.example:${target.port}/two`)).rejects.toSatisfy(denied);
    expect(dns.lookups).toEqual(['rebind.example', 'rebind.example']);
    expect(target.requests.map((request) => request.url)).toEqual(['/one']);
  });

  it('answers a redirect as it is, without following it anywhere', async () => {
    const elsewhere = await startLoopback((_req, res) => res.end('followed'));
    const redirecting = await startLoopback((_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${elsewhere.port}/inside` });
      res.end();
    });
    try {
      guarded = createEgressFetch({ policy: createEgressPolicy(['127.0.0.1']) });
      const response = await guarded.fetch(`http://127.0.0.1:${redirecting.port}/`, {
        method: 'POST',
        body: '{}',
        redirect: 'follow',
      });
      expect(response.status).toBe(307);
      expect(response.headers.get('location')).toBe(`http://127.0.0.1:${elsewhere.port}/inside`);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.close();
      await redirecting.close();
    }
  });

  it('stops a request when its signal aborts', async () => {
    const hanging = await startLoopback(() => undefined);
    try {
      guarded = createEgressFetch({ policy: createEgressPolicy(['127.0.0.1']) });
      const controller = new AbortController();
      const pending = guarded.fetch(`http://127.0.0.1:${hanging.port}/`, { signal: controller.signal });
      controller.abort(new Error('stop'));
      await expect(pending).rejects.toThrow();
    } finally {
      await hanging.close();
    }
  });
});
