import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/records/run-event.js';
import { expectError } from '../../test/helpers/http/expect-error.js';
import { post, QUICK, SLOW, useRunRoutesSetup } from '../../test/helpers/http/use-run-routes-setup.js';

const setup = useRunRoutesSetup();

interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

function parseFrames(text: string): SseFrame[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const frame: SseFrame = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim();
        const match = /^(id|event|data): ?(.*)$/.exec(line);
        if (match?.[1] !== undefined) frame[match[1] as 'id' | 'event' | 'data'] = match[2];
      }
      return frame;
    });
}

async function readAll(response: Response): Promise<SseFrame[]> {
  return parseFrames(await response.text());
}

function eventsOf(frames: SseFrame[]): RunEvent[] {
  return frames
    .filter((frame) => frame.data !== undefined)
    .map((frame) => JSON.parse(frame.data ?? '') as RunEvent);
}

describe('GET /api/agent/runs/{id}/events (SSE)', () => {
  it('streams every event as id/event/data frames, in order, and closes after end', async () => {
    const s = await setup(QUICK);
    const started = await post(s, 'hello');
    const response = await s.ctx.request('GET', `/api/agent/runs/${started.run.id}/events`, {
      token: s.alice.token,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const frames = (await readAll(response)).filter((frame) => frame.data !== undefined);
    const events = eventsOf(frames);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(frames.map((frame) => frame.id)).toEqual(events.map((event) => String(event.seq)));
    expect(frames.map((frame) => frame.event)).toEqual(events.map((event) => event.type));
    expect(events[0]?.type).toBe('metadata');
    expect(events.at(-1)?.type).toBe('end');
    expect(events.every((event) => event.run_id === started.run.id)).toBe(true);
  });

  it('resumes after after_seq, and Last-Event-ID wins over after_seq', async () => {
    const s = await setup(QUICK);
    const started = await post(s, 'hello');
    const url = `/api/agent/runs/${started.run.id}/events`;
    const all = eventsOf(await readAll(await s.ctx.request('GET', url, { token: s.alice.token })));
    const fromQuery = eventsOf(
      await readAll(await s.ctx.request('GET', `${url}?after_seq=2`, { token: s.alice.token })),
    );
    expect(fromQuery.map((event) => event.seq)).toEqual(all.slice(2).map((event) => event.seq));
    const fromHeader = eventsOf(
      await readAll(
        await s.ctx.request('GET', `${url}?after_seq=1`, {
          token: s.alice.token,
          headers: { 'Last-Event-ID': '3' },
        }),
      ),
    );
    expect(fromHeader[0]?.seq).toBe(4);
    expect(fromHeader.at(-1)?.type).toBe('end');
    await expectError(
      await s.ctx.request('GET', url, { token: s.alice.token, headers: { 'Last-Event-ID': 'abc' } }),
      400,
      'validation_failed',
    );
  });

  it('sends heartbeat comments and stops iterating when the client disconnects', async () => {
    const s = await setup(SLOW, 30);
    const started = await post(s, 'go');
    const response = await s.ctx.request('GET', `/api/agent/runs/${started.run.id}/events`, {
      token: s.alice.token,
    });
    const reader = (response.body as ReadableStream<Uint8Array> | null)?.getReader();
    if (reader === undefined) throw new Error('no body');
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(': heartbeat')) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    expect(text).toContain(': heartbeat');
    expect(s.streamSignals).toHaveLength(1);
    expect(s.streamSignals[0]?.aborted).toBe(false);
    await reader.cancel();
    await expect.poll(() => s.streamSignals[0]?.aborted, { timeout: 2000 }).toBe(true);
    await s.ctx.request('POST', `/api/agent/runs/${started.run.id}/cancel`, { token: s.alice.token });
  });

  it('answers a plain 404 before streaming for an unknown run', async () => {
    const s = await setup(QUICK);
    await expectError(
      await s.ctx.request('GET', '/api/agent/runs/00000000-0000-4000-8000-000000000000/events', {
        token: s.alice.token,
      }),
      404,
      'run_not_found',
    );
  });
});
