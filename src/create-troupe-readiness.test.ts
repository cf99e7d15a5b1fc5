import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { createTroupe, listen, type RunningServer, type Troupe } from './create-troupe.js';
import { eventually } from '../test/helpers/eventually.js';
import {
  startThrowawayPostgres,
  type ThrowawayPostgres,
} from '../test/helpers/services/throwaway-postgres.js';
import { startThrowawayRedis, type ThrowawayRedis } from '../test/helpers/services/throwaway-redis.js';
import { serviceBinariesOrSkip, useThrowawayServer } from '../test/helpers/services/use-throwaway-server.js';

/*
 * `GET /api/ready` of an API process wired by the composition root, over loopback, while a PostgreSQL and a
 * redis-server of the test's own stop and start again (the shared servers are never touched).
 */
const binaries = serviceBinariesOrSkip('Readiness on PostgreSQL and Redis');

interface Servers {
  dir: string;
  postgres: ThrowawayPostgres;
  redis: ThrowawayRedis;
}

interface Probe {
  status: number;
  retryAfter: string | null;
  body: { status?: string; checks?: unknown; error?: { code: string; details?: { checks?: unknown } } };
  text: string;
}

if (binaries) {
  describe('readiness of an API process on PostgreSQL and Redis', () => {
    const servers = useThrowawayServer<Servers>(async (dir, teardown) => ({
      dir,
      postgres: await startThrowawayPostgres(binaries.pgBin, dir, teardown),
      redis: await startThrowawayRedis(binaries.redisServer, dir, teardown),
    }));
    let troupe: Troupe | undefined;
    let server: RunningServer | undefined;

    beforeAll(async () => {
      const { dir, postgres, redis } = servers();
      const config = loadConfig(
        {
          TROUPE_DATA_DIR: path.join(dir, 'data'),
          TROUPE_DATABASE_URL: postgres.url,
          TROUPE_REDIS_URL: redis.url,
          TROUPE_PORT: '0',
        },
        dir,
      );
      troupe = await createTroupe(config, { role: 'api' });
      server = await listen(troupe);
    }, 60_000);

    afterAll(async () => {
      await server?.close();
      await troupe?.close();
    }, 30_000);

    async function probe(route = '/api/ready'): Promise<Probe> {
      if (!server) throw new Error('the API process is not listening');
      const response = await fetch(`${server.url}${route}`);
      const text = await response.text();
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: JSON.parse(text) as Probe['body'],
        text,
      };
    }

    async function probeUntil(what: string, done: (answer: Probe) => boolean): Promise<Probe> {
      return eventually(what, 20_000, async () => {
        const answer = await probe();
        return done(answer) ? answer : undefined;
      });
    }

    it('is ready, then names the bus while Redis is away, and is ready again once it is back', async () => {
      const { redis } = servers();
      expect(await probe()).toMatchObject({
        status: 200,
        body: { status: 'ready', checks: { storage: 'ok', bus: 'ok', queue: 'ok' } },
      });

      await redis.stop({ keepData: false });
      try {
        // The bus's and the queue's connections each notice on their own: wait for both.
        const down = await probeUntil('503 naming the bus and the queue while Redis is away', (answer) => {
          const checks = answer.body.error?.details?.checks as Record<string, string> | undefined;
          return checks?.bus === 'unavailable' && checks.queue === 'unavailable';
        });
        expect(down.retryAfter).toBe('5');
        expect(down.body.error?.code).toBe('bus_unavailable');
        expect(down.body.error?.details?.checks).toEqual({
          storage: 'ok',
          bus: 'unavailable',
          queue: 'unavailable',
        });
        // Nothing says where Redis is.
        expect(down.text).not.toContain(new URL(redis.url).port);
        expect((await probe('/api/health')).status).toBe(200);
      } finally {
        await redis.start();
      }
      await probeUntil('ready once Redis is back', (answer) => answer.status === 200);
    }, 60_000);

    it('names the database while PostgreSQL is stopped, and is ready again once it is back', async () => {
      const { postgres } = servers();
      await probeUntil('ready before the stop', (answer) => answer.status === 200);
      await postgres.stop();
      try {
        const down = await probeUntil('503 while PostgreSQL is away', (answer) => answer.status === 503);
        expect(down.retryAfter).toBe('5');
        expect(down.body.error?.code).toBe('storage_unavailable');
        expect(down.body.error?.details?.checks).toEqual({ storage: 'unavailable', bus: 'ok', queue: 'ok' });
        expect(down.text).not.toContain(new URL(postgres.url).port);
        expect((await probe('/api/health')).status).toBe(200);
      } finally {
        await postgres.start();
      }
      await probeUntil('ready once PostgreSQL is back', (answer) => answer.status === 200);
    }, 60_000);
  });
}
