import { describe, expect, it } from 'vitest';
import { usePostgresRuntime } from '../../../../test/helpers/runtime/use-postgres-runtime.js';
import { SLOW_SCENARIO } from '../../../../test/helpers/runtime/use-single-agent-runtime.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';

/*
 * A run start on PostgreSQL, where the run row leaves with its first message, ledger and title (src/runtime/runs/run-service.ts):
 * a row the database refuses aborts those writes too, and the start is told why all the same. Against a real
 * PostgreSQL when TROUPE_TEST_DATABASE_URL is set, in a schema of its own.
 */
const SKIP_REASON =
  'Run starts on PostgreSQL: skipped because TROUPE_TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5433/postgres; .ci/run sets it)';

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_DATABASE_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describe('run starts on PostgreSQL', () => {
    const postgresRuntime = usePostgresRuntime(url);

    async function setup() {
      const harness = await postgresRuntime({ scenarios: { slow: SLOW_SCENARIO } });
      const user = await harness.createUser('ann');
      const agent = await harness.createAgent(user, 'slow', { model: 'scripted:slow', tools: [] });
      const conversation = await harness.createConversation(user, agent);
      return { h: harness, user, conversation };
    }

    it('writes the run and its first message together', async () => {
      const { h, user, conversation } = await setup();
      const started = await h.runs.postMessage(user, conversation.id, { content: 'Plan the trip' });
      expect(started.status).toBe('started');
      const thread = await h.storage.messages.list(conversation.thread_id);
      expect(thread.map((entry) => [entry.run_id, entry.message.content])).toEqual([
        [started.run.id, 'Plan the trip'],
      ]);
    });

    it('refuses a second message while a run is active, naming it, and keeps nothing of the refused one', async () => {
      const { h, user, conversation } = await setup();
      const first = await h.runs.postMessage(user, conversation.id, { content: 'one' });
      const before = await h.storage.messages.list(conversation.thread_id);
      await expect(h.runs.postMessage(user, conversation.id, { content: 'two' })).rejects.toMatchObject({
        code: 'run_busy',
        details: { active_run_id: first.run.id },
      });
      expect(await h.storage.messages.list(conversation.thread_id)).toEqual(before);
      expect(await h.storage.runs.listByConversation(conversation.id)).toHaveLength(1);
      // The conversation is still usable: once the active run is cancelled, a new message starts a run.
      await h.runs.cancel(user, first.run.id);
      await h.runs.await(user, first.run.id, 10_000);
      expect((await h.runs.postMessage(user, conversation.id, { content: 'three' })).status).toBe('started');
    });

    it('answers two starts racing with one request id with one run', async () => {
      const { h, user, conversation } = await setup();
      const answers = await Promise.all(
        [1, 2].map(() =>
          h.runs.postMessage(user, conversation.id, { content: 'same', request_id: 'req-race' }),
        ),
      );
      expect(new Set(answers.map((answer) => answer.run.id)).size).toBe(1);
      expect(answers.map((answer) => answer.status).sort()).toEqual(['existing', 'started']);
      expect(await h.storage.runs.listByConversation(conversation.id)).toHaveLength(1);
      const thread = await h.storage.messages.list(conversation.thread_id);
      expect(thread).toHaveLength(1);
    });
  });
}
