import { describe, expect, it } from 'vitest';
import { commitFinal } from '../../../../test/helpers/runtime/commit-final.js';
import { usePostgresRuntime } from '../../../../test/helpers/runtime/use-postgres-runtime.js';
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
    const postgresRuntime = usePostgresRuntime(url);

    async function runningRun() {
      const h = await postgresRuntime({ scenarios: { slow: SLOW_SCENARIO }, startWorker: false });
      const user = await h.createUser('ann');
      const agent = await h.createAgent(user, 'slow', { model: 'scripted:slow', tools: [] });
      const conversation = await h.createConversation(user, agent);
      const { run } = await h.runs.postMessage(user, conversation.id, { content: 'finish' });
      await claimByDeadWorker(h.storage, run.id);
      const claimed = await h.storage.runs.get(run.id);
      if (!claimed) throw new Error('no run');
      return { h, run: claimed };
    }

    const messages = { step: 1, messages: [{ role: 'assistant' as const, content: 'the answer' }] };

    it('commits the step, its messages and the end in one try', async () => {
      const { h, run } = await runningRun();
      const attempts: boolean[] = [];
      const written = await commitFinal(h, run, attempts, { messages });
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
      const written = await commitFinal(h, run, attempts, { messages });
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
