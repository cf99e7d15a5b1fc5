import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../core/clock.js';
import type { Run } from '../../../core/records/run.js';
import { createRunEmitter } from '../../../runtime/events/create-run-emitter.js';
import { endRunIn } from '../../../runtime/runs/end/run-finalizer.js';
import { createPostgresStorage } from './create-postgres-storage.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';
import { claimByDeadWorker } from '../../../../test/helpers/runtime/claim-by-dead-worker.js';
import { SLOW_SCENARIO } from '../../../../test/helpers/runtime/use-single-agent-runtime.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';

/*
 * A completed run's final commit on PostgreSQL, where its compare-and-set, its `end` and the step's messages are
 * the transaction's last statements and the COMMIT leaves with them (`commitBehind`, docs/scale-out.md): a
 * compare-and-set that misses must fail on the server, so that nothing of the first try commits before the
 * careful one runs. Against a real PostgreSQL when TROUPE_TEST_DATABASE_URL is set, in a schema of its own.
 */
const SKIP_REASON =
  'Final commits on PostgreSQL: skipped because TROUPE_TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5433/postgres; .ci/run sets it)';

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_DATABASE_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describe('the final commit of a run on PostgreSQL', () => {
    let harness: RuntimeHarness | undefined;
    let schema: string | undefined;
    afterEach(async () => {
      await harness?.close();
      harness = undefined;
      if (schema === undefined) return;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
      schema = undefined;
    });

    async function runningRun() {
      const own = `troupe_test_${randomBytes(6).toString('hex')}`;
      schema = own;
      harness = await createRuntimeHarness({
        storage: () => createPostgresStorage({ connectionString: url, schema: own, poolSize: 4 }),
        scenarios: { slow: SLOW_SCENARIO },
        startWorker: false,
      });
      const h = harness;
      const user = await h.createUser('ann');
      const agent = await h.createAgent(user, 'slow', { model: 'scripted:slow', tools: [] });
      const conversation = await h.createConversation(user, agent);
      const { run } = await h.runs.postMessage(user, conversation.id, { content: 'finish' });
      await claimByDeadWorker(h.storage, run.id);
      const claimed = await h.storage.runs.get(run.id);
      if (!claimed) throw new Error('no run');
      return { h, run: claimed };
    }

    const finalStep = [{ type: 'step' as const, payload: { step: 1, tool_calls: 0 } }];
    const stepMessages = { step: 1, messages: [{ role: 'assistant' as const, content: 'the answer' }] };

    /** The final commit as a worker makes it: the ending from the row it holds, careful when it runs again. */
    function commitFinal(h: RuntimeHarness, run: Run, attempts: boolean[]) {
      const emitter = createRunEmitter(h.storage, h.bus, run);
      return emitter.commit(
        finalStep,
        async (tx, append, attempt) => {
          attempts.push(attempt.careful);
          const ended = await endRunIn(tx, systemClock, {
            runId: run.id,
            expect: { status: ['running'], worker_id: 'wrk_dead' },
            write: { status: 'completed', output: 'the answer' },
            hasLedger: false,
            append,
            ...(attempt.careful ? {} : { held: run }),
          });
          return ended?.events;
        },
        stepMessages,
      );
    }

    it('commits the step, its messages and the end in one try', async () => {
      const { h, run } = await runningRun();
      const attempts: boolean[] = [];
      const written = await commitFinal(h, run, attempts);
      expect(attempts).toEqual([false]);
      expect(written.map((event) => event.type)).toEqual(['step', 'end']);
      expect(await h.storage.runs.get(run.id)).toMatchObject({ status: 'completed', output: 'the answer' });
      const thread = await h.storage.messages.list(run.thread_id);
      expect(thread.map((entry) => entry.message.content)).toEqual(['finish', 'the answer']);
    });

    it('keeps nothing of the first try when its compare-and-set missed: the step and its messages alone, no end', async () => {
      const { h, run } = await runningRun();
      await h.storage.runs.update(run.id, { status: ['running'] }, { status: 'cancel_requested' });
      const attempts: boolean[] = [];
      const written = await commitFinal(h, run, attempts);
      expect(attempts).toEqual([false, true]);
      expect(written.map((event) => [event.seq, event.type])).toEqual([[1, 'step']]);
      expect((await h.storage.events.list(run.id, 0, 10)).map((event) => [event.seq, event.type])).toEqual([
        [1, 'step'],
      ]);
      // The messages of the first try were rolled back with it: written once, by the careful one.
      const thread = await h.storage.messages.list(run.thread_id);
      expect(thread.map((entry) => entry.message.content)).toEqual(['finish', 'the answer']);
      expect((await h.storage.runs.get(run.id))?.status).toBe('cancel_requested');
    });
  });
}
