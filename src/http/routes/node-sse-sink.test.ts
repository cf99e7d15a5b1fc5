import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openNodeSseSink } from './node-sse-sink.js';
import { MAX_UNSENT_SSE_BYTES } from './sse-sink.js';
import type { SseSink } from './sse-sink.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A loopback server whose one route opens a sink and hands it (and its response) to the test. */
async function open(): Promise<{
  url: string;
  opened: Promise<{ sink: SseSink; outgoing: ServerResponse; closed: Promise<void> }>;
}> {
  let resolveOpened: (value: { sink: SseSink; outgoing: ServerResponse; closed: Promise<void> }) => void;
  const opened = new Promise<{ sink: SseSink; outgoing: ServerResponse; closed: Promise<void> }>(
    (resolve) => (resolveOpened = resolve),
  );
  server = createServer((_incoming, outgoing) => {
    let onClose: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (onClose = resolve));
    const sink = openNodeSseSink(outgoing, { 'Content-Type': 'text/event-stream' }, onClose);
    resolveOpened({ sink, outgoing, closed });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, opened };
}

describe('openNodeSseSink', () => {
  it('sends the headers at once, each write as it comes, and closes on end', async () => {
    const { url, opened } = await open();
    const response = await fetch(url);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const { sink } = await opened;
    sink.write(Buffer.from('data: 1\n\n'));
    sink.write(Buffer.from('data: 2\n\n'));
    sink.end();
    expect(await response.text()).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('sends the frames written together in one write once the queued microtasks ran, before process.nextTick', async () => {
    const { url, opened } = await open();
    const response = await fetch(url);
    const { sink, outgoing } = await opened;
    const socket = outgoing.socket;
    if (!socket) throw new Error('no socket');
    const writes: number[] = [];
    const writev = socket._writev?.bind(socket);
    const write = socket._write.bind(socket);
    socket._writev = (chunks, callback) => (writes.push(chunks.length), writev?.(chunks, callback));
    socket._write = (chunk, encoding, callback) => (writes.push(1), write(chunk, encoding, callback));
    let nextTickRan = false;
    process.nextTick(() => (nextTickRan = true));
    sink.write(Buffer.from('data: 1\n\n'));
    sink.write(Buffer.from('data: 2\n\n'));
    expect(writes).toEqual([]);
    await Promise.resolve();
    // Flushed from a microtask: Node's own uncork waits for process.nextTick, after every microtask.
    expect(nextTickRan).toBe(false);
    expect(socket.writableCorked).toBe(0);
    expect(writes).toHaveLength(1);
    sink.end();
    expect(await response.text()).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('tells onClose when the client goes away, and ignores writes after that', async () => {
    const { url, opened } = await open();
    const controller = new AbortController();
    const response = await fetch(url, { signal: controller.signal });
    const { sink, closed } = await opened;
    controller.abort();
    await response.body?.cancel().catch(() => undefined);
    await closed;
    sink.write(Buffer.from('data: late\n\n'));
    sink.end();
    await expect(sink.ready()).resolves.toBeUndefined();
  });

  it('drops a client that stops reading once too much is left unsent, instead of holding more for it', async () => {
    const { url, opened } = await open();
    const { port } = new URL(url);
    const client = connect(Number(port), '127.0.0.1');
    client.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    client.pause();
    const { sink, outgoing, closed } = await opened;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let written = 0;
    while (!outgoing.destroyed && written < 16 * MAX_UNSENT_SSE_BYTES) {
      sink.write(chunk);
      written += chunk.length;
    }
    expect(outgoing.destroyed).toBe(true);
    expect(outgoing.writableLength).toBeLessThanOrEqual(MAX_UNSENT_SSE_BYTES + chunk.length);
    await closed;
    client.destroy();
  });
});
