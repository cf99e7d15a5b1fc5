import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTroupeError } from '../core/errors.js';
import { readRequestBytes } from './read-request-bytes.js';

const LIMIT = 16;

const app = new Hono();
app.post('/read', async (c) => {
  const viaNode = typeof c.env === 'object' && c.env !== null && 'incoming' in c.env;
  try {
    const bytes = await readRequestBytes(c, LIMIT);
    return c.json({ text: new TextDecoder().decode(bytes), viaNode });
  } catch (error) {
    return c.json({ error: isTroupeError(error) ? error.code : String(error) }, 413);
  }
});

let server: ServerType;
let port: number;
beforeAll(async () => {
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Sends the body in the given chunks; without `length`, Node uses chunked encoding. */
function post(chunks: string[], length?: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/read',
        headers: length === undefined ? {} : { 'content-length': String(length) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('readRequestBytes', () => {
  it('reads a body straight from Node, with or without a declared length', async () => {
    expect(await post(['{"a":', '1}'], 7)).toEqual({ text: '{"a":1}', viaNode: true });
    expect(await post(['{"a":', '1}'])).toEqual({ text: '{"a":1}', viaNode: true });
    expect(await post([], 0)).toEqual({ text: '', viaNode: true });
  });

  it('refuses an oversize body by its declared length and by its bytes when chunked', async () => {
    expect(await post(['x'.repeat(LIMIT + 1)], LIMIT + 1)).toEqual({ error: 'payload_too_large' });
    expect(await post(['x'.repeat(LIMIT), 'y'])).toEqual({ error: 'payload_too_large' });
    // The connection stays usable after a refusal.
    expect(await post(['ok'])).toEqual({ text: 'ok', viaNode: true });
  });

  it('falls back to the web request outside Node (app.request) with the same limit', async () => {
    const ok = await app.request('/read', { method: 'POST', body: 'hello' });
    expect(await ok.json()).toEqual({ text: 'hello', viaNode: false });
    const big = await app.request('/read', { method: 'POST', body: 'x'.repeat(LIMIT + 1) });
    expect(await big.json()).toEqual({ error: 'payload_too_large' });
  });
});
