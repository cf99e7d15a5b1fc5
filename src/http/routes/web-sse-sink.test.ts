import { describe, expect, it } from 'vitest';
import { MAX_UNSENT_SSE_BYTES } from './sse-sink.js';
import { openWebSseSink } from './web-sse-sink.js';

describe('openWebSseSink', () => {
  it('streams what is written and closes on end', async () => {
    const { sink, body } = openWebSseSink(() => undefined);
    sink.write(Buffer.from('data: 1\n\n'));
    sink.write(Buffer.from('data: 2\n\n'));
    sink.end();
    expect(await new Response(body).text()).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('tells onCancel when the reader cancels, and ignores writes after that', async () => {
    let cancelled = 0;
    const { sink, body } = openWebSseSink(() => (cancelled += 1));
    await body.cancel();
    sink.write(Buffer.from('data: late\n\n'));
    sink.end();
    expect(cancelled).toBe(1);
    await expect(sink.ready()).resolves.toBeUndefined();
  });

  it('errors the stream of a reader that fell too far behind, instead of holding more for it', async () => {
    let cancelled = 0;
    const { sink, body } = openWebSseSink(() => (cancelled += 1));
    const chunk = Buffer.alloc(64 * 1024, 'x');
    for (let written = 0; written <= MAX_UNSENT_SSE_BYTES + 2 * chunk.length; written += chunk.length) {
      sink.write(chunk);
    }
    expect(cancelled).toBe(1);
    const reader = body.getReader();
    await expect(reader.read()).rejects.toThrow(/too far behind/);
  });

  it('paces: ready waits until the reader has taken what was queued', async () => {
    const { sink, body } = openWebSseSink(() => undefined);
    sink.write(Buffer.alloc(128 * 1024));
    let ready = false;
    const waiting = sink.ready().then(() => (ready = true));
    expect(ready).toBe(false);
    const reader = body.getReader();
    await reader.read();
    await waiting;
    expect(ready).toBe(true);
  });
});
