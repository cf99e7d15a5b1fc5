import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelLimits } from '../../../core/model-limits/model-limits.js';
import type { ModelAdmission } from '../../../core/ports/model-admission.js';
import { describeModelAdmissionContract } from '../../../../test/contracts/model-admission.contract.js';
import { createRedisModelAdmission } from './create-redis-model-admission.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';

/*
 * Against a real Redis when TROUPE_TEST_REDIS_URL is set. Each admission gets its own key prefix (deleted
 * afterwards), so tests never share limits unless they mean to.
 */
const SKIP_REASON =
  'Redis model admission: skipped because TROUPE_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6390)';

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_REDIS_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  const prefixes: string[] = [];
  const freshPrefix = () => {
    const prefix = `troupe-test:${randomUUID().slice(0, 8)}:`;
    prefixes.push(prefix);
    return prefix;
  };
  afterAll(async () => {
    const redis = new Redis(url);
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    await redis.quit();
  });

  describeModelAdmissionContract('Redis', (limits) =>
    createRedisModelAdmission({ url, limits, keyPrefix: freshPrefix(), pollMs: 200 }),
  );

  describe('Redis model admission across processes', () => {
    const never = new AbortController().signal;
    const ticket = (userId: string) => ({ provider: 'openai', model: 'gpt-a', userId, tokens: () => 1 });
    const pair = async (limits: ModelLimits, leaseMs?: number): Promise<[ModelAdmission, ModelAdmission]> => {
      const keyPrefix = freshPrefix();
      const options = { url, limits, keyPrefix, pollMs: 200, ...(leaseMs ? { leaseMs } : {}) };
      return [await createRedisModelAdmission(options), await createRedisModelAdmission(options)];
    };

    it('two instances share one concurrency limit, and a release in one wakes a call waiting in the other', async () => {
      const [one, two] = await pair({ openai: { concurrency: 1 } });
      try {
        const held = await one.admit(ticket('usr_a'), never);
        let admitted = false;
        const waiting = two.admit(ticket('usr_b'), never).then((grant) => {
          admitted = true;
          return grant;
        });
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(admitted).toBe(false);
        const released = Date.now();
        await held.release();
        await waiting;
        // Woken by the published release, not by the 200 ms poll alone.
        expect(Date.now() - released).toBeLessThan(1000);
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });

    it("a pause set by one instance holds the other's calls", async () => {
      const [one, two] = await pair({});
      try {
        await one.pause('openai', Date.now() + 400);
        const grant = await two.admit(ticket('usr_a'), never);
        expect(grant.waitedMs).toBeGreaterThanOrEqual(300);
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });

    it('a call under no limit gives back without a round trip, and a limited one still does', async () => {
      const keyPrefix = freshPrefix();
      const options = { url, limits: { anthropic: { concurrency: 1 } }, keyPrefix, pollMs: 200 };
      const admission = await createRedisModelAdmission(options);
      // Every give runs the GIVE script, which announces the release on the prefix's channel: a release
      // that sends nothing to Redis announces nothing.
      const listener = new Redis(url);
      const heard: string[] = [];
      await listener.subscribe(`${keyPrefix}models:changes`);
      listener.on('message', (_channel: string, provider: string) => heard.push(provider));
      try {
        await (await admission.admit(ticket('usr_a'), never)).release();
        await (await admission.admit({ ...ticket('usr_a'), provider: 'anthropic' }, never)).release();
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(heard).toEqual(['anthropic']);
      } finally {
        await listener.quit();
        await admission.close();
      }
    });

    it('a pause reaches an instance whose calls under no limit go without asking Redis', async () => {
      const [one, two] = await pair({});
      try {
        // Two calls: the first asks Redis and finds openai unpaused, the second goes on that knowledge.
        await (await two.admit(ticket('usr_a'), never)).release();
        await (await two.admit(ticket('usr_a'), never)).release();
        await one.pause('openai', Date.now() + 400);
        // The announcement reaches `two` at once; give it the moment it takes.
        await new Promise((resolve) => setTimeout(resolve, 50));
        const grant = await two.admit(ticket('usr_b'), never);
        expect(grant.waitedMs).toBeGreaterThanOrEqual(250);
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });

    it('a place held by a process that died comes back when its lease runs out', async () => {
      const [one, two] = await pair({ openai: { concurrency: 1 } }, 1000);
      await one.admit(ticket('usr_a'), never);
      // Gone without releasing: its renewal stops with it.
      await one.close();
      try {
        const grant = await two.admit(ticket('usr_b'), never);
        expect(grant.waitedMs).toBeGreaterThan(300);
      } finally {
        await two.close();
      }
    });
  });
}
