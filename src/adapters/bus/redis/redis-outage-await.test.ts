import { afterEach, describe, expect, it } from 'vitest';
import { createRedisEventBus } from './create-redis-event-bus.js';
import type { EventBus } from '../../../core/ports/event-bus.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';
import { startThrowawayRedis } from '../../../../test/helpers/services/throwaway-redis.js';
import {
  serviceBinariesOrSkip,
  useThrowawayServer,
} from '../../../../test/helpers/services/use-throwaway-server.js';
import { awaitRunsTerminal } from '../../../runtime/runs/wait/await-runs-terminal.js';

/*
 * A wait on a Redis bus whose Redis goes away: the runs' ends are not published to it (the harness's runs end
 * on its in-process bus, as an end published while Redis is down is lost), and the wait still ends, from storage.
 */
const binaries = serviceBinariesOrSkip('awaitRunsTerminal across a Redis outage');
/** Running when the wait starts, done well within the test. */
const BRIEF = `rules:\n  - steps:\n      - delay_ms: 1500\n        text: "brief {{input}}"\n`;

if (binaries) {
  describe('awaitRunsTerminal across a Redis outage', () => {
    const redis = useThrowawayServer((dir, teardown) =>
      startThrowawayRedis(binaries.redisServer, dir, teardown),
    );
    let harness: RuntimeHarness | undefined;
    let bus: EventBus | undefined;
    afterEach(async () => {
      await bus?.close();
      await harness?.close();
    });

    it('ends on a run that ended while Redis was away, read from storage, not on the timeout', async () => {
      harness = await createRuntimeHarness({ scenarios: { brief: BRIEF } });
      const user = await harness.createUser('ann');
      const agent = await harness.createAgent(user, 'brief', { model: 'scripted:brief' });
      const conversation = await harness.createConversation(user, agent);
      const started = await harness.runs.postMessage(user, conversation.id, { content: 'go' });
      bus = await createRedisEventBus({ url: redis().url, onError: () => undefined });
      const waiting = awaitRunsTerminal(harness.storage, bus, [started.run.id], {
        mode: 'all',
        timeoutMs: 60_000,
      });

      await redis().stop({ keepData: false });
      const waited = await waiting;
      expect(waited.timed_out).toBe(false);
      expect(waited.runs[0]?.status).toBe('completed');
      expect(waited.runs[0]).toEqual(await harness.storage.runs.get(started.run.id));
      await redis().start();
    }, 60_000);
  });
}
