import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createPostgresStorage } from './create-postgres-storage.js';
import type { Storage } from '../../../core/ports/storage.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';
import { eventually } from '../../../../test/helpers/eventually.js';
import { startThrowawayPostgres } from '../../../../test/helpers/services/throwaway-postgres.js';
import {
  serviceBinariesOrSkip,
  useThrowawayServer,
} from '../../../../test/helpers/services/use-throwaway-server.js';
import { defineTool } from '../../../core/tools/troupe-tool.js';

/*
 * A run on a PostgreSQL server of the test's own, stopped in the middle of a step and started again: the worker
 * waits the outage out holding the run (same attempt, same lease) and goes on from where it was.
 */
const binaries = serviceBinariesOrSkip('runs across a PostgreSQL outage');
const SCENARIO = (tool: string) =>
  `rules:\n  - steps:\n      - tool_calls: [{ name: ${tool}, args: {} }]\n      - text: done\n`;

/** A tool that waits for the test before it answers, counting its calls. */
function gatedTool(name: string, answer: (call: number) => Promise<string>) {
  let calls = 0;
  let called: () => void = () => undefined;
  const firstCall = new Promise<void>((resolve) => (called = resolve));
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const tool = defineTool({
    effect: 'read_only',
    name,
    description: `${name} (test)`,
    inputSchema: z.object({}),
    async execute() {
      calls += 1;
      called();
      await gate;
      return answer(calls);
    },
  });
  return { tool, firstCall, open, calls: () => calls };
}

if (binaries) {
  describe('a run across a PostgreSQL outage', () => {
    const postgres = useThrowawayServer((dir, teardown) =>
      startThrowawayPostgres(binaries.pgBin, dir, teardown),
    );
    let harness: RuntimeHarness | undefined;
    afterEach(async () => {
      await harness?.close();
      harness = undefined;
    });

    async function start(
      scenario: string,
      tool: ReturnType<typeof gatedTool>['tool'],
      options: { startWorker?: boolean } = {},
    ) {
      const schema = `outage_${Math.random().toString(36).slice(2, 10)}`;
      const open = (): Promise<Storage> =>
        createPostgresStorage({
          connectionString: postgres().url,
          schema,
          poolSize: 4,
          onError: () => undefined,
        });
      harness = await createRuntimeHarness({
        storage: open,
        scenarios: { outage: scenario },
        extraTools: [tool],
        ...options,
      });
      const user = await harness.createUser('ann');
      const agent = await harness.createAgent(user, 'outage', {
        model: 'scripted:outage',
        tools: [tool.name],
      });
      const conversation = await harness.createConversation(user, agent);
      const { run } = await harness.runs.postMessage(user, conversation.id, { content: 'go' });
      return { h: harness, user, run };
    }

    /** Stops the server, does `during` while it is down, and starts it again 1.5 s later. */
    async function whileDown<T>(during: () => T): Promise<T> {
      await postgres().stop();
      const result = during();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await postgres().start();
      return result;
    }

    async function expectOneCleanAttempt(h: RuntimeHarness, runId: string): Promise<void> {
      const run = await eventually('the run to complete', 60_000, async () => {
        const current = await h.storage.runs.get(runId);
        return current?.status === 'completed' ? current : undefined;
      });
      // Same attempt, never handed to the reconciler: no lease expired, no second `metadata`.
      expect(run.attempt).toBe(1);
      expect(run.output).toBe('done');
      const events = await h.storage.events.list(runId, 0, 1000);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      expect(events.filter((event) => event.type === 'metadata')).toHaveLength(1);
      expect(events.filter((event) => event.type === 'tool_result')).toHaveLength(1);
      expect(events.filter((event) => event.type === 'end')).toHaveLength(1);
      const thread = await h.storage.messages.list(run.thread_id);
      expect(thread.filter((entry) => entry.message.role === 'tool')).toHaveLength(1);
    }

    it('keeps a tool result that landed while the database was down, and commits it once it is back', async () => {
      const gated = gatedTool('hold_on', () => Promise.resolve('held on'));
      const { h, run } = await start(SCENARIO('hold_on'), gated.tool);
      await gated.firstCall;
      // The result's checkpoint meets the outage: the worker waits, then commits it; the call is not made again.
      await whileDown(() => gated.open());
      await expectOneCleanAttempt(h, run.id);
      expect(gated.calls()).toBe(1);
    }, 90_000);

    it('makes a call again that failed on the outage, from what is committed, in the same attempt', async () => {
      const reader: { storage?: Storage } = {};
      const gated = gatedTool('read_db', async (call) => {
        // The first call reads while the database is down: an outage, not a result for the model.
        await reader.storage?.runs.get('run_missing');
        return `read on call ${call}`;
      });
      const { h, run } = await start(SCENARIO('read_db'), gated.tool);
      reader.storage = h.storage;
      await gated.firstCall;
      await whileDown(() => gated.open());
      await expectOneCleanAttempt(h, run.id);
      expect(gated.calls()).toBe(2);
      const results = await h.storage.events.list(run.id, 0, 1000);
      expect(results.find((event) => event.type === 'tool_result')?.payload).toMatchObject({
        output: 'read on call 2',
        is_error: false,
      });
    }, 90_000);

    it('claims a run whose queue delivery met the outage once the database is back', async () => {
      const gated = gatedTool('later', () => Promise.resolve('later'));
      const { h, run } = await start(SCENARIO('later'), gated.tool, { startWorker: false });
      await h.executor.start();
      // The delivery's claim meets the outage: it is tried again, not dropped until the reconciler's sweep.
      // Wrapped: the execution settles only after the gate opens, below.
      const { executed } = await whileDown(() => ({ executed: h.executor.execute(run.id) }));
      await gated.firstCall;
      gated.open();
      await executed;
      await expectOneCleanAttempt(h, run.id);
      expect(gated.calls()).toBe(1);
    }, 90_000);
  });
}
