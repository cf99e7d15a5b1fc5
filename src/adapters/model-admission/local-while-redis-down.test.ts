import { describe, expect, it } from 'vitest';
import { startThrowawayRedis } from '../../../test/helpers/services/throwaway-redis.js';
import {
  serviceBinariesOrSkip,
  useThrowawayServer,
} from '../../../test/helpers/services/use-throwaway-server.js';
import { ProviderPausedError } from '../../core/ports/model-admission.js';
import { localWhileRedisDown } from './local-while-redis-down.js';
import { createMemoryModelAdmission } from './memory/create-memory-model-admission.js';
import { createRedisModelAdmission } from './redis/create-redis-model-admission.js';

/*
 * A redis-server of the test's own, stopped under the admission (the shared one is never touched). Skipped,
 * with the reason, when redis-server is not installed.
 */
const binaries = serviceBinariesOrSkip('Model admission while Redis is away');

if (binaries) {
  describe('model admission while Redis is away', () => {
    const redis = useThrowawayServer((dir, teardown) =>
      startThrowawayRedis(binaries.redisServer, dir, teardown),
    );
    const ticket = { provider: 'openai', model: 'gpt-a', userId: 'usr_a', tokens: () => 10 };
    const never = new AbortController().signal;

    it('admits by the process’s own limits while Redis is stopped, and by the shared ones once it is back', async () => {
      const limits = { openai: { concurrency: 1 } };
      const fallbacks: unknown[] = [];
      const admission = localWhileRedisDown(
        await createRedisModelAdmission({ url: redis().url, limits, onError: () => undefined }),
        createMemoryModelAdmission({ limits }),
        (error) => fallbacks.push(error),
      );
      try {
        await (await admission.admit(ticket, never)).release();
        expect(fallbacks).toEqual([]);

        await redis().stop({ keepData: false });
        const during = await admission.admit(ticket, never);
        expect(fallbacks.length).toBeGreaterThan(0);
        // The process's own concurrency of 1 holds while Redis is away.
        const second = new AbortController();
        const waiting = admission.admit(ticket, second.signal);
        const reason = new Error('given up');
        second.abort(reason);
        await expect(waiting).rejects.toBe(reason);
        await during.release();
        // A pause reaches the local limits although Redis cannot take it.
        await admission.pause('openai', Date.now() + 60_000);
        await expect(admission.admit({ ...ticket, maxPauseMs: 1_000 }, never)).rejects.toBeInstanceOf(
          ProviderPausedError,
        );

        await redis().start();
        const seen = fallbacks.length;
        const after = await admission.admit({ ...ticket, provider: 'anthropic' }, never);
        await after.release();
        expect(fallbacks.length).toBe(seen);
        // Another process's pause holds this one's calls under no limit again: they skip Redis only while the
        // announcements' channel is subscribed again, so none goes out on what was known before the outage.
        await (await admission.admit({ ...ticket, provider: 'anthropic' }, never)).release();
        const other = await createRedisModelAdmission({ url: redis().url, limits, onError: () => undefined });
        try {
          await other.pause('anthropic', Date.now() + 60_000);
        } finally {
          await other.close();
        }
        await expect(
          admission.admit({ ...ticket, provider: 'anthropic', maxPauseMs: 1_000 }, never),
        ).rejects.toBeInstanceOf(ProviderPausedError);
      } finally {
        await admission.close();
      }
    }, 60_000);
  });
}
