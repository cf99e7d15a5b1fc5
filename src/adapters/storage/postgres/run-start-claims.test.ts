import { describe, expect, it } from 'vitest';
import { usePostgresRuntime } from '../../../../test/helpers/runtime/use-postgres-runtime.js';
import { SLOW_SCENARIO } from '../../../../test/helpers/runtime/use-single-agent-runtime.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';
import { newRunId } from '../../../core/ids.js';
import { buildNewRun } from '../../../core/runs/build-new-run.js';
import { CLAIM_WAIT_MS } from '../sql/run-start-claims.js';
import type { RuntimeHarness } from '../../../../test/helpers/create-runtime-harness.js';
import { spyQueue } from '../../../../test/helpers/runtime/spy-queue.js';

/*
 * A run's claims wait for the transaction starting it (src/adapters/storage/sql/run-start-claims.ts): a process
 * that executes no runs queues a new run with its COMMIT, and the worker that takes it at once must find it.
 * Against a real PostgreSQL when TROUPE_TEST_DATABASE_URL is set, in a schema of its own.
 */
const SKIP_REASON =
  "A run's claims on PostgreSQL: skipped because TROUPE_TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5433/postgres; .ci/run sets it)";

const DONE = `
rules:
  - steps:
      - text: Done.
`;

async function world(h: RuntimeHarness) {
  const user = await h.createUser('ann');
  const agent = await h.createAgent(user, 'done', { model: 'scripted:done', tools: [] });
  const conversation = await h.createConversation(user, agent);
  return { user, agent, conversation };
}

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_DATABASE_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describe("a run's claims on PostgreSQL", () => {
    const postgresRuntime = usePostgresRuntime(url);

    /** A run row written in a transaction that holds its claims and is still open when this resolves. */
    async function openStart(h: RuntimeHarness, commit: Promise<void>) {
      const { user, agent, conversation } = await world(h);
      const id = newRunId();
      let held!: () => void;
      const holding = new Promise<void>((resolve) => (held = resolve));
      const started = h.storage.transaction(async (tx) => {
        expect(await tx.runs.holdClaims(id)).toBe(true);
        await tx.runs.insert(
          buildNewRun({
            id,
            run_type: 'chat',
            channel: 'api',
            user_id: user.id,
            agent,
            thread_id: conversation.thread_id,
            conversation_id: conversation.id,
            parent: undefined,
            fallback_model: 'scripted:done',
            input: { message: 'hi' },
          }),
        );
        held();
        await commit;
      });
      await holding;
      return { id, started };
    }

    it('makes a claim wait until the start committed, then takes the run', async () => {
      const h = await postgresRuntime({ scenarios: { done: DONE }, startWorker: false });
      let commit!: () => void;
      const { id, started } = await openStart(h, new Promise((resolve) => (commit = resolve)));
      let settled = false;
      const claim = h.storage.runs.claimWithContext(
        id,
        'wrk_a',
        new Date(Date.now() + 60_000).toISOString(),
        new Date().toISOString(),
      );
      void claim.finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(settled).toBe(false);
      commit();
      await started;
      const claimed = await claim;
      expect(claimed?.run).toMatchObject({ id, status: 'running', worker_id: 'wrk_a', attempt: 1 });
      expect(claimed?.context.agent?.slug).toBe('done');
    });

    it('makes a claim give up on a start held past CLAIM_WAIT_MS, leaving the run pending once it commits', async () => {
      const h = await postgresRuntime({ scenarios: { done: DONE }, startWorker: false });
      let commit!: () => void;
      const { id, started } = await openStart(h, new Promise((resolve) => (commit = resolve)));
      const asked = Date.now();
      const lease = () => [new Date(Date.now() + 60_000).toISOString(), new Date().toISOString()] as const;
      const claimed = h.storage.runs.claim(id, 'wrk_a', ...lease()).then(
        () => 'claimed',
        (error: unknown) => error,
      );
      const outcome = await claimed.finally(() => commit());
      await started;
      expect(outcome).toMatchObject({ code: '55P03' });
      expect(Date.now() - asked).toBeGreaterThanOrEqual(CLAIM_WAIT_MS - 100);
      expect(await h.storage.runs.get(id)).toMatchObject({ status: 'pending', worker_id: null });
      // The connection and the lock timeout are the pool's again, unchanged: the next claim takes the run.
      expect(await h.storage.runs.claim(id, 'wrk_b', ...lease())).toMatchObject({ worker_id: 'wrk_b' });
    }, 15_000);

    it('makes a claim of a start that rolled back claim nothing', async () => {
      const h = await postgresRuntime({ scenarios: { done: DONE }, startWorker: false });
      let abort!: (error: Error) => void;
      const { id, started } = await openStart(h, new Promise((_, reject) => (abort = reject)));
      started.catch(() => undefined);
      const claim = h.storage.runs.claim(
        id,
        'wrk_a',
        new Date(Date.now() + 60_000).toISOString(),
        new Date().toISOString(),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      abort(new Error('the start failed'));
      await expect(started).rejects.toThrow('the start failed');
      expect(await claim).toBeUndefined();
      expect(await h.storage.runs.get(id)).toBeUndefined();
    });

    it('does not hold claims outside a transaction', async () => {
      const h = await postgresRuntime({ startWorker: false });
      await expect(h.storage.runs.holdClaims(newRunId())).rejects.toMatchObject({ code: 'internal' });
    });

    it('lets an API process queue each run with its COMMIT: a worker taking it at once finds it', async () => {
      const h = await postgresRuntime({ scenarios: { done: DONE }, executesRuns: false });
      const queued = spyQueue(h);
      const { user, agent } = await world(h);
      const conversations = await Promise.all(
        Array.from({ length: 10 }, () => h.createConversation(user, agent)),
      );
      const started = await Promise.all(
        conversations.map((conversation) => h.runs.postMessage(user, conversation.id, { content: 'hi' })),
      );
      const ended = await Promise.all(started.map(({ run }) => h.runs.await(user, run.id, 10_000)));
      expect(ended.map(({ run }) => [run.status, run.error])).toEqual(Array(10).fill(['completed', null]));
      expect(queued.sort()).toEqual(started.map(({ run }) => run.id).sort());
    });

    it('refuses a busy thread after queueing the refused run, and the claim of it takes nothing', async () => {
      const h = await postgresRuntime({ scenarios: { slow: SLOW_SCENARIO }, executesRuns: false });
      const queued = spyQueue(h);
      const user = await h.createUser('ann');
      const agent = await h.createAgent(user, 'slow', { model: 'scripted:slow', tools: [] });
      const conversation = await h.createConversation(user, agent);
      const first = await h.runs.postMessage(user, conversation.id, { content: 'one' });
      await expect(h.runs.postMessage(user, conversation.id, { content: 'two' })).rejects.toMatchObject({
        code: 'run_busy',
      });
      const refused = queued.filter((id) => id !== first.run.id);
      expect(refused.length).toBeGreaterThan(0);
      for (const id of refused) expect(await h.storage.runs.get(id)).toBeUndefined();
      expect((await h.storage.runs.listByConversation(conversation.id)).map((run) => run.id)).toEqual([
        first.run.id,
      ]);
      await h.runs.cancel(user, first.run.id);
      await h.runs.await(user, first.run.id, 10_000);
    });
  });
}
