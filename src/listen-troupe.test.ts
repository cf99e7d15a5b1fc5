import { Hono } from 'hono';
import { describe, expect, it, vi } from 'vitest';
import type { AppEnv } from './http/app-env.js';
import { listen } from './listen-troupe.js';
import { RequestArrivals } from './runtime/runs/start/request-arrivals.js';

describe('serving a Troupe', () => {
  it('counts every request as it arrives, before the app routes it', async () => {
    const requests = new RequestArrivals();
    const arrived = vi.spyOn(requests, 'arrived');
    const app = new Hono<AppEnv>();
    app.get('/seen', (c) => c.json({ arrivals: arrived.mock.calls.length, burst: requests.inBurst }));
    const server = await listen({ app, config: { host: '127.0.0.1', port: 0 }, requests });
    try {
      const first = await fetch(`${server.url}/seen`);
      expect(await first.json()).toEqual({ arrivals: 1, burst: false });
      expect((await fetch(`${server.url}/missing`)).status).toBe(404);
      expect(arrived).toHaveBeenCalledTimes(2);
    } finally {
      await server.close();
    }
  });
});
