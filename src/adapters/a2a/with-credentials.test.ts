import { describe, expect, it } from 'vitest';
import { withCredentials } from './with-credentials.js';

describe('remote expert credentials', () => {
  it("go to the card's origin only, never to another host a card names", async () => {
    const seen: { url: string; authorization: string | null; accept: string | null }[] = [];
    const base: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      seen.push({
        url: input instanceof Request ? input.url : input.toString(),
        authorization: headers.get('authorization'),
        accept: headers.get('accept'),
      });
      return Promise.resolve(new Response('{}'));
    };
    const guarded = withCredentials(base, 'https://agents.example.com/a2a/x/.well-known/agent-card.json', {
      authorization: 'Bearer secret',
    });
    await guarded('https://agents.example.com/a2a/x', { headers: { accept: 'application/json' } });
    await guarded('https://evil.example.net/a2a/x', { headers: { accept: 'application/json' } });
    await guarded('http://agents.example.com/a2a/x');
    expect(seen).toEqual([
      { url: 'https://agents.example.com/a2a/x', authorization: 'Bearer secret', accept: 'application/json' },
      { url: 'https://evil.example.net/a2a/x', authorization: null, accept: 'application/json' },
      { url: 'http://agents.example.com/a2a/x', authorization: null, accept: null },
    ]);
  });
});
