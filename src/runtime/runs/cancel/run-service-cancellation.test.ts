import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunEvent } from '../../../core/records/run-event.js';
import {
  ECHO_SCENARIO as ECHO,
  SLOW_SCENARIO as SLOW,
  useSingleAgentRuntime,
} from '../../../../test/helpers/runtime/use-single-agent-runtime.js';
import { defineTool } from '../../../core/tools/troupe-tool.js';

const setup = useSingleAgentRuntime();

describe('run service: cancellation', () => {
  it('cancels a never-started run at once, with its end event', async () => {
    const { h, user, conversation } = await setup(ECHO, { startWorker: false });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const cancelled = await h.runs.cancel(user, run.id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.error?.type).toBe('cancelled');
    const events = await h.storage.events.list(run.id, 0, 100);
    expect(events.map((event) => event.type)).toEqual(['end']);
  });

  it('aborts the model call of a running run: running → cancel_requested → cancelled', async () => {
    const { h, user, conversation } = await setup(SLOW);
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const stream = await h.runs.streamEvents(user, run.id, 0, new AbortController().signal);
    const seen: RunEvent[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (event.type === 'message_delta' && seen.filter((e) => e.type === 'message_delta').length === 1) {
        const requested = await h.runs.cancel(user, run.id);
        expect(requested.status).toBe('cancel_requested');
      }
    }
    expect(seen.at(-1)).toMatchObject({ type: 'end', payload: { status: 'cancelled' } });
    const final = await h.runs.getRun(user, run.id);
    expect(final.status).toBe('cancelled');
    // The 20 s step was cut short: far less than the whole text was streamed.
    const streamed = seen
      .filter((e) => e.type === 'message_delta')
      .map((e) => String(e.payload.text))
      .join('');
    expect(streamed.length).toBeLessThan(400);
  });

  it('aborts tools in flight through their AbortSignal', async () => {
    let toolSawAbort = false;
    // The cancel must land while the tool runs: one landing before it is refused by the run gate instead.
    let inFlight: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (inFlight = resolve));
    const block = defineTool({
      effect: 'read_only',
      name: 'block',
      description: 'waits until aborted',
      inputSchema: z.object({}),
      execute: (_input, context) =>
        new Promise((_resolve, reject) => {
          inFlight();
          context.abortSignal.addEventListener('abort', () => {
            toolSawAbort = true;
            reject(new Error('aborted'));
          });
        }),
    });
    const { h, user, conversation } = await setup(
      `rules:\n  - steps:\n      - tool_calls: [{ name: block, args: {} }]\n      - text: never\n`,
      {
        extraTools: [block],
      },
    );
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    for await (const event of await h.runs.streamEvents(user, run.id, 0, new AbortController().signal)) {
      if (event.type === 'tool_call') {
        await started;
        await h.runs.cancel(user, run.id);
      }
    }
    expect(toolSawAbort).toBe(true);
    expect((await h.runs.getRun(user, run.id)).status).toBe('cancelled');
  });

  it('closes the whole subtree when a run is cancelled', async () => {
    const { h, user, conversation, agent } = await setup(SLOW, { startWorker: false });
    const { run: parent } = await h.runs.postMessage(user, conversation.id, { content: 'parent' });
    const childConversation = await h.createConversation(user, agent);
    const child = await h.storage.runs.insert({
      ...parent,
      id: crypto.randomUUID(),
      thread_id: childConversation.thread_id,
      conversation_id: childConversation.id,
      request_id: 'child-req',
      run_type: 'subagent',
      created_by_run_id: parent.id,
      depth: 1,
    });
    await h.runs.cancel(user, parent.id);
    expect((await h.storage.runs.get(child.id))?.status).toBe('cancelled');
    expect((await h.storage.runs.get(child.id))?.error?.type).toBe('execution_tree_closed');
  });
});
