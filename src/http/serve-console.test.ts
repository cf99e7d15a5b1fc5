import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv } from './app-env.js';
import { serveConsole } from './serve-console.js';

const SCRIPT = `console.info(${JSON.stringify('troupe '.repeat(200))});`;
const INDEX = '<!doctype html><html><body><script src="/assets/app-1a2b3c.js"></script></body></html>';

let dir: string;
let server: ServerType;
let port: number;
beforeAll(async () => {
  // A build as web/precompress-plugin.ts leaves it: every text file with .br and .gz siblings.
  dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-console-'));
  mkdirSync(path.join(dir, 'assets'));
  for (const [name, text] of [
    ['index.html', INDEX],
    ['assets/app-1a2b3c.js', SCRIPT],
  ] as const) {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    writeFileSync(`${file}.br`, brotliCompressSync(text));
    writeFileSync(`${file}.gz`, gzipSync(text));
  }
  writeFileSync(path.join(dir, 'assets', 'plain-9f8e7d.css'), 'body{margin:0}');
  const app = new Hono<AppEnv>();
  serveConsole(app, dir);
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** The raw response over loopback: node:http decodes nothing, so the bytes are the ones on the wire. */
function fetchRaw(
  urlPath: string,
  acceptEncoding?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
    get({ host: '127.0.0.1', port, path: urlPath, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    }).on('error', reject);
  });
}

describe('console assets over HTTP', () => {
  it('sends brotli when accepted, as a browser asks, with an immutable cache for hashed assets', async () => {
    const response = await fetchRaw('/assets/app-1a2b3c.js', 'gzip, deflate, br, zstd');
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers['content-type']).toMatch(/^text\/javascript/);
    expect(response.headers.vary).toBe('Accept-Encoding');
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.body.length).toBeLessThan(SCRIPT.length / 4);
    expect(brotliDecompressSync(response.body).toString()).toBe(SCRIPT);
  });

  it('sends gzip to a client without brotli and the file as is to one that accepts neither', async () => {
    const gzipped = await fetchRaw('/assets/app-1a2b3c.js', 'gzip');
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.body).toString()).toBe(SCRIPT);

    const plain = await fetchRaw('/assets/app-1a2b3c.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.body.toString()).toBe(SCRIPT);
  });

  it('revalidates index.html, also as the fallback of client-side routes and of a missing asset', async () => {
    for (const urlPath of ['/', '/index.html', '/chat/cnv_1', '/assets/gone-000000.js']) {
      const response = await fetchRaw(urlPath, 'br');
      expect(response.status, urlPath).toBe(200);
      expect(response.headers['cache-control'], urlPath).toBe('no-cache');
      expect(response.headers['content-type'], urlPath).toMatch(/^text\/html/);
      expect(response.headers['content-encoding'], urlPath).toBe('br');
      expect(brotliDecompressSync(response.body).toString(), urlPath).toBe(INDEX);
    }
  });

  it('serves an asset without compressed copies as is, with no Vary', async () => {
    const response = await fetchRaw('/assets/plain-9f8e7d.css', 'br, gzip');
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers['content-type']).toMatch(/^text\/css/);
    expect(response.headers.vary).toBeUndefined();
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.body.toString()).toBe('body{margin:0}');
  });
});
