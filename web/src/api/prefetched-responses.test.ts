import { describe, expect, it } from 'vitest';
import indexHtml from '../../index.html?raw';
import { createApiClient } from './api-client.ts';
import { prefetchedPaths, takePrefetched, type Prefetched } from './prefetched-responses.ts';

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

  it('names the paths the console requests for a conversation', () => {
    expect(prefetchedPaths('c 1')).toEqual([
      '/api/conversations/c%201',
      '/api/conversations/c%201/messages',
      '/api/conversations/c%201/runs',
    ]);
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

describe("index.html's inline script", () => {
  const script = /<script>([\s\S]*?)<\/script>/.exec(indexHtml)?.[1] ?? '';

  function runAt(pathname: string, token: string | null) {
    const sent: { path: string; headers: Record<string, string> }[] = [];
    const win: { __troupePrefetch?: Prefetched } = {};
    const storage = { getItem: (key: string) => (key === 'troupe.token' ? token : null) };
    const fetch = (path: string, init: { headers: Record<string, string> }) => {
      sent.push({ path, headers: init.headers });
      return json({});
    };
    const current: string[] = [];
    const links = ['/chat', '/agents', '/runs'].map((href) => ({
      getAttribute: () => href,
      setAttribute: () => current.push(href),
    }));
    const root = { textContent: 'chrome', querySelectorAll: () => links };
    const document = { getElementById: (id: string) => (id === 'root' ? root : null) };
    // The page's own inline script, run as the browser would run it, against a stand-in window.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const run = new Function('window', 'document', 'location', 'localStorage', 'fetch', script) as (
      ...args: unknown[]
    ) => void;
    run(win, document, { pathname }, storage, fetch);
    return { sent, prefetched: win.__troupePrefetch, chrome: root.textContent, current };
  }

  it('requests the paths the console adopts, with the stored token, on a conversation page only', () => {
    const { sent, prefetched } = runAt('/chat/c%201', 'tok');
    expect(sent.map((request) => request.path)).toEqual(prefetchedPaths('c 1'));
    expect(sent[0]?.headers.authorization).toBe('Bearer tok');
    expect(Object.keys(prefetched?.responses ?? {})).toEqual(prefetchedPaths('c 1'));
    expect(runAt('/chat/c1', null).sent).toEqual([]);
    expect(runAt('/agents', 'tok').sent).toEqual([]);
    expect(runAt('/chat', 'tok').sent).toEqual([]);
    expect(runAt('/chat/%E0%A4%A', 'tok').sent).toEqual([]);
  });

  it('keeps the painted chrome for a signed-in visitor, its section marked, and drops it otherwise', () => {
    expect(runAt('/agents/a1/edit', 'tok')).toMatchObject({ chrome: 'chrome', current: ['/agents'] });
    expect(runAt('/', 'tok')).toMatchObject({ chrome: 'chrome', current: ['/chat'] });
    expect(runAt('/chat/c1', ' ')).toMatchObject({ chrome: '', current: [] });
  });
});
