import { describe, expect, it } from 'vitest';
import { usePostgresRuntime } from '../../../../test/helpers/runtime/use-postgres-runtime.js';
import {
  PARENT_HOLDS,
  SLOW,
  runningParent,
  subagentWorldIn,
} from '../../../../test/helpers/runtime/use-subagent-world.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';

/*
 * A child start on PostgreSQL (src/runtime/runs/start/write-child-run.ts): its home and run row leave together,
 * then its ledger, first message and parent's updates with the COMMIT behind them. Starts racing on one tool
 * call or one busy thread end with one run, the others told why, and nothing of a refused start is kept. Against
 * a real PostgreSQL when TROUPE_TEST_DATABASE_URL is set, in a schema of its own.
 */
const SKIP_REASON =
  'Child starts on PostgreSQL: skipped because TROUPE_TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5433/postgres; .ci/run sets it)';

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_DATABASE_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describe('child starts on PostgreSQL', () => {
    const postgresRuntime = usePostgresRuntime(url);

    async function setup() {
      const { h, user, helper, conversation } = await subagentWorldIn(
        await postgresRuntime({ scenarios: { main: PARENT_HOLDS, helper: SLOW } }),
      );
      const parent = await runningParent(h, user.id, conversation.id);
      const start = (toolCallId: string, threadId?: string) =>
        h.subagents.start({
          creatorRunId: parent.id,
          userId: user.id,
          subagent: helper,
          description: `work for ${toolCallId}`,
          toolCallId,
          ...(threadId === undefined ? {} : { threadId }),
        });
      return { h, user, parent, conversation, start };
    }

    it("writes the child's conversation, relation, run and first message together", async () => {
      const { h, user, parent, conversation, start } = await setup();
      const started = await start('call-1');
      if (started.kind !== 'started') throw new Error(`the start was ${started.kind}`);
      const [child] = await h.storage.runs.listChildren(parent.id);
      expect(child?.id).toBe(started.run.id);
      const [relation] = await h.storage.subagentThreads.listForParent(conversation.id);
      expect(relation?.child_thread_id).toBe(started.run.thread_id);
      const thread = await h.storage.messages.list(started.run.thread_id);
      expect(thread.map((entry) => [entry.run_id, entry.message.content])).toEqual([
        [started.run.id, 'work for call-1'],
      ]);
      await h.runs.cancel(user, parent.id);
    });

    it('answers 20 replays of one tool call racing with one run, and keeps nothing of the refused rows', async () => {
      const { h, user, parent, conversation, start } = await setup();
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => start('call-same')));
      expect(outcomes.filter((outcome) => outcome.kind === 'started')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.kind === 'existing')).toHaveLength(19);
      expect(new Set(outcomes.map((outcome) => ('run' in outcome ? outcome.run.id : '')))).toHaveProperty(
        'size',
        1,
      );
      const [child] = await h.storage.runs.listChildren(parent.id);
      expect(await h.storage.runs.listChildren(parent.id)).toHaveLength(1);
      expect(await h.storage.subagentThreads.listForParent(conversation.id)).toHaveLength(1);
      expect(await h.storage.messages.list(child?.thread_id ?? '')).toHaveLength(1);
      // A replay after the fact is the same run.
      expect(await start('call-same')).toMatchObject({ kind: 'existing', run: { id: child?.id } });
      await h.runs.cancel(user, parent.id);
    });

    it('answers a continued thread that has an active run as busy, writing nothing', async () => {
      const { h, user, parent, start } = await setup();
      const first = await start('call-1');
      if (first.kind !== 'started') throw new Error(`the start was ${first.kind}`);
      const before = await h.storage.messages.list(first.run.thread_id);
      const again = await start('call-2', first.run.thread_id);
      expect(again).toMatchObject({ kind: 'busy', activeRun: { id: first.run.id } });
      expect(await h.storage.messages.list(first.run.thread_id)).toEqual(before);
      expect(await h.storage.runs.listChildren(parent.id)).toHaveLength(1);
      await h.runs.cancel(user, parent.id);
    });
  });
}
