import { describe, expect, it } from 'vitest';
import { claimByDeadWorker } from '../../../test/helpers/runtime/claim-by-dead-worker.js';
import {
  ECHO_SCENARIO as ECHO,
  useSingleAgentRuntime,
} from '../../../test/helpers/runtime/use-single-agent-runtime.js';
import { eventually } from '../../../test/helpers/eventually.js';
import type { RunView, TokenUsage } from '../../core/records/run.js';
import { timelineUsage } from '../../core/trace/run-timeline.js';
import { readRunTimeline } from './read-run-timeline.js';

const setup = useSingleAgentRuntime();

/** Step 1 quickly asks for a tool; step 2 streams for 3 s: long enough to read the run while it runs. */
const SLOW_SECOND_STEP = `
rules:
  - steps:
      - text: "Listing."
        tool_calls:
          - name: ls
            args: {}
      - delay_ms: 3000
        chunk_size: 4
        text: "${'slowly '.repeat(30)}"
`;

const calls = (usage: TokenUsage | null) => (usage ? usage.model_calls + usage.aborted_model_calls : 0);

describe('usage over the attempts of a run (docs/usage.md)', () => {
  it('is live while the run runs: the calls it settled so far, then the same figure at its end', async () => {
    const { h, user, conversation } = await setup(SLOW_SECOND_STEP);
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    const live = await eventually('the first call to be settled', 10_000, async () => {
      const seen = await h.runs.getRun(user, run.id);
      return seen.status === 'running' && seen.usage?.model_calls === 1 ? seen : undefined;
    });
    expect(live.usage?.total_tokens).toBeGreaterThan(0);
    // The stored row still has none: the figure comes from the turn the call wrote.
    expect((await h.storage.runs.get(run.id))?.usage).toBeNull();
    const done = (await h.runs.await(user, run.id, 10_000)).run;
    expect(done.usage).toMatchObject({ model_calls: 2, aborted_model_calls: 0 });
    expect(done.usage?.total_tokens).toBeGreaterThan(live.usage?.total_tokens ?? 0);
    const settled = (await h.storage.messages.settledUsageOf([done])).get(run.id);
    expect(done.usage).toEqual(settled);
  });

  it('sums every attempt after a worker died mid-call, the ledger and the trace agreeing, and never goes down', async () => {
    const { h, user, agent, conversation } = await setup(ECHO, { startWorker: false, leaseMs: 60_000 });
    await h.storage.agents.update(agent.id, { config: { ...agent.config, budget: { tokens: 100_000 } } });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'survive' });
    // A worker claimed it, settled step 1 (a turn carrying its usage, the tool's result, their events), was
    // charged for step 2's call and died during it.
    await claimByDeadWorker(h.storage, run.id);
    await h.storage.budgets.admit(
      run.id,
      { tokens: 50, model_calls: 1, tool_calls: 0 },
      new Date().toISOString(),
    );
    await h.storage.budgets.settle(run.id, { tokens: 110 - 50 });
    await h.storage.budgets.admit(
      run.id,
      { tokens: 50, model_calls: 1, tool_calls: 1 },
      new Date().toISOString(),
    );
    const call = {
      type: 'tool-call' as const,
      toolCallId: 'c1',
      toolName: 'write_file',
      input: { path: 'out.txt', content: 'survive' },
    };
    await h.storage.messages.appendSteps(conversation.thread_id, run.id, [
      {
        step: 1,
        messages: [{ role: 'assistant', content: [call] }],
        usage: { input_tokens: 100, output_tokens: 10 },
      },
      {
        step: 1,
        messages: [
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'c1',
                toolName: 'write_file',
                output: { type: 'text', value: 'ok' },
              },
            ],
          },
        ],
      },
    ]);
    const payload = { root_run_id: run.id, parent_run_id: null, parent_tool_call_id: null, depth: 0 };
    for (const [type, extra] of [
      ['metadata', { model: 'scripted:main', attempt: 1, usage: null }],
      [
        'tool_call',
        {
          step: 1,
          tool_call_id: 'c1',
          name: 'write_file',
          args: {},
          model_usage: { input_tokens: 100, output_tokens: 10 },
        },
      ],
      ['tool_result', { step: 1, tool_call_id: 'c1', name: 'write_file', output: 'ok', is_error: false }],
      ['step', { step: 1, tool_calls: 1, usage: { input_tokens: 100, output_tokens: 10 } }],
    ] as const) {
      await h.storage.events.append({ run_id: run.id, type, payload: { ...payload, ...extra } });
    }
    const seen: RunView[] = [await h.runs.getRun(user, run.id)];
    expect(seen[0]?.usage).toMatchObject({ total_tokens: 110, model_calls: 1, aborted_model_calls: 0 });
    expect(seen[0]?.worker_lost).toMatchObject({ then: 'resume' });

    expect((await h.reconciler.reconcileOnce()).resumed).toEqual([run.id]);
    seen.push(await h.runs.getRun(user, run.id));
    expect(seen[1]).toMatchObject({ status: 'pending', worker_lost: null });
    expect(seen[1]?.usage).toEqual({
      input_tokens: 100,
      output_tokens: 10,
      total_tokens: 110,
      model_calls: 1,
      aborted_model_calls: 1,
    });
    // The call that never answered gave its estimate back and stays counted.
    expect((await h.storage.budgets.get(run.id))?.used).toMatchObject({ tokens: 110, model_calls: 2 });

    await h.executor.start();
    h.queue.process((runId) => h.executor.execute(runId));
    seen.push((await h.runs.await(user, run.id, 10_000)).run);
    const done = seen[2];
    expect(done).toMatchObject({ status: 'completed', attempt: 2 });
    // Step 1 settled in the first attempt, steps 2 and 3 in the second; the lost call is counted as such.
    expect(done?.usage).toMatchObject({ model_calls: 3, aborted_model_calls: 1 });
    for (let index = 1; index < seen.length; index++) {
      expect(calls(seen[index]?.usage ?? null)).toBeGreaterThanOrEqual(calls(seen[index - 1]?.usage ?? null));
      expect(seen[index]?.usage?.total_tokens).toBeGreaterThanOrEqual(
        seen[index - 1]?.usage?.total_tokens ?? 0,
      );
    }
    const settled = (await h.storage.messages.settledUsageOf([run])).get(run.id);
    expect({ ...settled, aborted_model_calls: 1 }).toEqual(done?.usage);
    const ledger = await h.storage.budgets.get(run.id);
    expect(ledger?.used.tokens).toBe(done?.usage?.total_tokens);
    expect(ledger?.used.model_calls).toBe(calls(done?.usage ?? null));
    // The trace's spans count the same calls: three answered, one interrupted by the lost worker.
    const timeline = await readRunTimeline(h.storage, run.id);
    expect(timelineUsage(timeline)).toEqual(done?.usage);
    expect(timeline.spans.filter((span) => span.kind === 'model').map((span) => span.status)).toEqual([
      'done',
      'interrupted',
      'done',
      'done',
    ]);
  });

  it('counts a cancelled call as aborted, in the run, its ledger and its trace alike', async () => {
    const { h, user, agent, conversation } = await setup(SLOW_SECOND_STEP);
    await h.storage.agents.update(agent.id, { config: { ...agent.config, budget: { tokens: 100_000 } } });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    await eventually('the slow call to stream', 10_000, async () =>
      (await h.storage.events.list(run.id, 0, 1000)).filter((event) => event.type === 'message_delta')
        .length > 1
        ? true
        : undefined,
    );
    await h.runs.cancel(user, run.id);
    const done = (await h.runs.await(user, run.id, 10_000)).run;
    expect(done.status).toBe('cancelled');
    expect(done.usage).toMatchObject({ model_calls: 1, aborted_model_calls: 1 });
    const ledger = await h.storage.budgets.get(run.id);
    expect(ledger?.used).toMatchObject({ tokens: done.usage?.total_tokens, model_calls: 2 });
    const timeline = await readRunTimeline(h.storage, run.id);
    expect(timelineUsage(timeline)).toEqual(done.usage);
    expect(timeline.spans.filter((span) => span.kind === 'model').map((span) => span.status)).toEqual([
      'done',
      'cancelled',
    ]);
  });
});
