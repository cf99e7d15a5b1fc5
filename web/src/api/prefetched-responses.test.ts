import { describe, expect, it } from 'vitest';
import indexHtml from '../../index.html?raw';
import { createApiClient } from './api-client.ts';
import {
  prefetchedPaths,
  takePrefetched,
  takePrefetchedBody,
  type Prefetched,
} from './prefetched-responses.ts';

const json = (body: unknown, status = 200) =>
  Promise.resolve(
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
  );

describe('takePrefetched', () => {
  it('hands each prefetched response out once, and only to the token it was sent with', async () => {
    const source: { __troupePrefetch?: Prefetched } = {
      __troupePrefetch: { token: 'tok', responses: { '/api/conversations/c%201/messages': json({ ok: 1 }) } },
    };
    expect(takePrefetched('/api/conversations/c%201/messages', 'other', source)).toBeUndefined();
    const taken = takePrefetched('/api/conversations/c%201/messages', 'tok', source);
    expect(await (await taken)?.json()).toEqual({ ok: 1 });
    expect(takePrefetched('/api/conversations/c%201/messages', 'tok', source)).toBeUndefined();
    expect(takePrefetched('/api/me', 'tok', {})).toBeUndefined();
  });

  it('hands an answer already read to the first render once, and then not its response', async () => {
    const source: { __troupePrefetch?: Prefetched } = {
      __troupePrefetch: {
        token: 'tok',
        responses: { '/api/me': json({ user: 1 }), '/api/limits': json({ limits: 1 }) },
        bodies: { '/api/me': { user: 1 } },
      },
    };
    expect(takePrefetchedBody('/api/me', 'other', source)).toBeUndefined();
    // Not read yet: the response stays for the client's own request.
    expect(takePrefetchedBody('/api/limits', 'tok', source)).toBeUndefined();
    expect(await (await takePrefetched('/api/limits', 'tok', source))?.json()).toEqual({ limits: 1 });
    expect(takePrefetchedBody('/api/me', 'tok', source)).toEqual({ user: 1 });
    expect(takePrefetchedBody('/api/me', 'tok', source)).toBeUndefined();
    expect(takePrefetched('/api/me', 'tok', source)).toBeUndefined();
  });

  it("names the paths the console requests, a conversation's first", () => {
    expect(prefetchedPaths('c 1')).toEqual([
      '/api/conversations/c%201',
      '/api/conversations/c%201/messages',
      '/api/conversations/c%201/runs',
      '/api/me',
      '/api/conversations?status=active',
      '/api/limits',
      '/api/conversations/c%201/subagents',
      '/api/conversations/c%201/artifacts',
    ]);
    expect(prefetchedPaths(null)).toEqual(['/api/me', '/api/conversations?status=active', '/api/limits']);
  });
});

describe('the API client adopts a prefetched response', () => {
  it('reads it instead of fetching, then fetches the same path anew; a 401 still signs out', async () => {
    const sent: string[] = [];
    let unauthorized = 0;
    const global = globalThis as { window?: { __troupePrefetch?: Prefetched } };
    global.window = {
      __troupePrefetch: {
        token: 'tok',
        responses: {
          '/api/conversations/c1/runs': json({ runs: ['early'] }),
          '/api/conversations/c1': json({ error: { code: 'unauthorized', message: 'no' } }, 401),
        },
      },
    };
    try {
      const client = createApiClient({
        getToken: () => 'tok',
        onUnauthorized: () => (unauthorized += 1),
        fetch: (input) => {
          sent.push(input as string);
          return json({ runs: ['fresh'] });
        },
      });
      expect(await client.request('GET', '/api/conversations/c1/runs')).toEqual({ runs: ['early'] });
      expect(sent).toEqual([]);
      expect(await client.request('GET', '/api/conversations/c1/runs')).toEqual({ runs: ['fresh'] });
      expect(sent).toEqual(['/api/conversations/c1/runs']);
      await expect(client.request('GET', '/api/conversations/c1')).rejects.toMatchObject({
        code: 'unauthorized',
      });
      expect(unauthorized).toBe(1);
    } finally {
      delete global.window;
    }
  });
});

describe("index.html's inline scripts", () => {
  // The first in <head> (before the stylesheet), the second after the painted chrome.
  const [headScript = '', bodyScript = ''] = [...indexHtml.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (match) => match[1],
  );

  async function runAt(pathname: string, token: string | null) {
    const sent: { path: string; headers: Record<string, string> }[] = [];
    const win: { __troupePrefetch?: Prefetched } = {};
    const storage = { getItem: (key: string) => (key === 'troupe.token' ? token : null) };
    const fetch = (path: string, init: { headers: Record<string, string> }) => {
      sent.push({ path, headers: init.headers });
      return json(path.endsWith('c%201') ? { conversation: { agent_id: 'a 1' } } : { path });
    };
    const current: string[] = [];
    const links = ['/chat', '/agents', '/runs'].map((href) => ({
      getAttribute: () => href,
      setAttribute: () => current.push(href),
    }));
    const root = { textContent: 'chrome', querySelectorAll: () => links };
    const document = { getElementById: (id: string) => (id === 'root' ? root : null) };
    // The page's own inline scripts, run as the browser would run them, against a stand-in window.
    for (const script of [headScript, bodyScript]) {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval
      const run = new Function('window', 'document', 'location', 'localStorage', 'fetch', script) as (
        ...args: unknown[]
      ) => void;
      run(win, document, { pathname }, storage, fetch);
    }
    const before = sent.map((request) => request.path);
    // The answers arrive: each is read once, the conversation's names its agent.
    await new Promise((resolve) => setTimeout(resolve, 10));
    return { sent, before, prefetched: win.__troupePrefetch, chrome: root.textContent, current };
  }

  it("requests the paths the console adopts, with the stored token, the transcript's first", async () => {
    const { sent, before, prefetched } = await runAt('/chat/c%201', 'tok');
    expect(before).toEqual(prefetchedPaths('c 1'));
    expect(sent.map((request) => request.path)).toEqual([...prefetchedPaths('c 1'), '/api/agent/a%201']);
    expect(sent[0]?.headers.authorization).toBe('Bearer tok');
    expect(Object.keys(prefetched?.responses ?? {})).toEqual(sent.map((request) => request.path));
    expect(prefetched?.bodies?.['/api/me']).toEqual({ path: '/api/me' });
    expect((await runAt('/chat/c1', null)).sent).toEqual([]);
    expect((await runAt('/agents', 'tok')).before).toEqual(['/api/me']);
    expect((await runAt('/chat', 'tok')).before).toEqual(prefetchedPaths(null));
    expect((await runAt('/chat/%E0%A4%A', 'tok')).before).toEqual(prefetchedPaths(null));
  });

  it('keeps the painted chrome for a signed-in visitor, its section marked, and drops it otherwise', async () => {
    expect(await runAt('/agents/a1/edit', 'tok')).toMatchObject({ chrome: 'chrome', current: ['/agents'] });
    expect(await runAt('/', 'tok')).toMatchObject({ chrome: 'chrome', current: ['/chat'] });
    expect(await runAt('/chat/c1', ' ')).toMatchObject({ chrome: '', current: [] });
  });
});
