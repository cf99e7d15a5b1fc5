import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { claimByDeadWorker } from '../../../../test/helpers/runtime/claim-by-dead-worker.js';
import { useSingleAgentRuntime } from '../../../../test/helpers/runtime/use-single-agent-runtime.js';
import type { ToolEffect } from '../../../core/tools/tool-effect.js';
import { defineTool, type AnyTroupeTool } from '../../../core/tools/troupe-tool.js';
import { hasUnknownOutcome, UNKNOWN_OUTCOME_TEXT } from '../../../core/tools/unknown-outcome.js';
import type { ToolResultPart } from '../../../core/thread/chat-message.js';

/*
 * The tool-call journal on resume (docs/effects-and-forks.md#the-journal), in process: a worker that died after
 * its model's turn was checkpointed, with one call finished, one external call started and one not, and
 * read-only and idempotent calls started. The kill -9 suites (test/e2e/tool-effects-*.e2e.test.ts) prove the
 * same on real processes.
 */
const setup = useSingleAgentRuntime();

const SCENARIO = `
rules:
  - steps:
      - tool_calls:
          - name: lookup
            args: { key: a }
      - text: "Done."
`;

function countingTools(): { tools: AnyTroupeTool[]; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  const tool = (name: string, effect: ToolEffect) =>
    defineTool({
      name,
      effect,
      description: `${name} (counts its calls)`,
      inputSchema: z.object({ key: z.string() }),
      execute: ({ key }) => {
        counts.set(name, (counts.get(name) ?? 0) + 1);
        return Promise.resolve(`${name} ${key}`);
      },
    });
  return {
    tools: [tool('lookup', 'read_only'), tool('upsert', 'idempotent'), tool('send', 'external')],
    counts,
  };
}

const call = (toolCallId: string, toolName: string) => ({
  type: 'tool-call' as const,
  toolCallId,
  toolName,
  input: { key: toolCallId },
});

describe('the tool-call journal', () => {
  it('on resume: never re-runs a finished call, re-runs started read-only and idempotent calls, runs an external call that never started, and answers a started external call "outcome unknown"', async () => {
    const { tools, counts } = countingTools();
    const { h, user, conversation } = await setup(SCENARIO, { startWorker: false, extraTools: tools });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    await claimByDeadWorker(h.storage, run.id);
    await h.storage.messages.append(conversation.thread_id, run.id, 1, [
      {
        role: 'assistant',
        content: [
          call('c_done', 'send'),
          call('c_read', 'lookup'),
          call('c_idem', 'upsert'),
          call('c_started', 'send'),
          call('c_asked', 'send'),
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c_done',
            toolName: 'send',
            output: { type: 'text', value: 'sent' },
          },
        ],
      },
    ]);
    await h.storage.toolCalls.markStarted(run.id, 'c_done');
    await h.storage.toolCalls.markStarted(run.id, 'c_started');

    expect((await h.reconciler.reconcileOnce()).resumed).toEqual([run.id]);
    await h.executor.start();
    h.queue.process((runId) => h.executor.execute(runId));
    const awaited = await h.runs.await(user, run.id, 10_000);
    expect(awaited.run).toMatchObject({ status: 'completed', attempt: 2, output: 'Done.' });

    // The finished external call and the started one ran never again; the one the worker never started ran once.
    expect(Object.fromEntries(counts)).toEqual({ lookup: 1, upsert: 1, send: 1 });
    const results = new Map<string, ToolResultPart>();
    for (const entry of await h.storage.messages.list(conversation.thread_id)) {
      if (entry.message.role !== 'tool') continue;
      for (const part of entry.message.content)
        if (part.type === 'tool-result') results.set(part.toolCallId, part);
    }
    expect([...results.keys()].sort()).toEqual(['c_asked', 'c_done', 'c_idem', 'c_read', 'c_started']);
    const started = results.get('c_started');
    expect(started?.output).toEqual({ type: 'error-text', value: UNKNOWN_OUTCOME_TEXT });
    expect(started && hasUnknownOutcome(started)).toBe(true);
    expect(results.get('c_asked')?.output).toEqual({ type: 'text', value: 'send c_asked' });
    expect([...results.values()].filter(hasUnknownOutcome)).toHaveLength(1);

    const events = await h.storage.events.list(run.id, 0, 500);
    const unknown = events.filter((event) => event.type === 'tool_result' && 'outcome' in event.payload);
    expect(unknown.map((event) => event.payload)).toEqual([
      expect.objectContaining({ tool_call_id: 'c_started', is_error: true, outcome: 'unknown' }),
    ]);
    // The external call that ran on resume was journalled before it ran; nothing else was.
    expect(await h.storage.toolCalls.startedAmong(run.id, ['c_read', 'c_idem', 'c_asked'])).toEqual(
      new Set(['c_asked']),
    );
  });

  it('marks only external calls started, before they run', async () => {
    const { tools } = countingTools();
    const scenario = `
rules:
  - steps:
      - tool_calls:
          - name: lookup
            args: { key: r }
          - name: upsert
            args: { key: i }
          - name: send
            args: { key: e }
      - text: "Done."
`;
    const probe = defineTool({
      name: 'send',
      effect: 'external',
      description: 'send (checks its own mark)',
      inputSchema: z.object({ key: z.string() }),
      execute: async (_input, context) => {
        const marked = await h.storage.toolCalls.startedAmong(context.run.id, [context.toolCallId]);
        return marked.has(context.toolCallId) ? 'marked before it ran' : 'not marked';
      },
    });
    const { h, user, conversation } = await setup(scenario, {
      extraTools: [...tools.filter((tool) => tool.name !== 'send'), probe],
    });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    expect((await h.runs.await(user, run.id, 10_000)).run.status).toBe('completed');
    const calls = (await h.storage.events.list(run.id, 0, 500)).filter(
      (event) => event.type === 'tool_result',
    );
    expect(calls.map((event) => [event.payload.name, event.payload.output])).toEqual(
      expect.arrayContaining([['send', 'marked before it ran']]),
    );
    const ids = calls.map((event) => event.payload.tool_call_id);
    const marked = await h.storage.toolCalls.startedAmong(run.id, ids);
    expect(
      calls.filter((event) => marked.has(event.payload.tool_call_id)).map((e) => e.payload.name),
    ).toEqual(['send']);
  });
});
