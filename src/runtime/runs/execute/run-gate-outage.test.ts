import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Storage } from '../../../core/ports/storage.js';
import { defineTool } from '../../../core/tools/troupe-tool.js';
import { storageOutageError as unavailable } from '../../../../test/helpers/runtime/storage-outage-error.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';

/*
 * The admission gate's reads and writes meet a database outage after the model answered a turn (the stop check
 * before the tool call, the budget's settlement): the worker waits it out and goes on, in the same attempt,
 * without asking the model that turn again (docs/scale-out.md, "Outages").
 */
const SCENARIO = `rules:\n  - steps:\n      - tool_calls: [{ name: note_down, args: {} }]\n      - text: done\n`;

describe('the admission gate across a database outage', () => {
  let harness: RuntimeHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  /** Makes the runtime's `lineageStatuses` and `settle` fail once, at the calls `failAt` names (1-based). */
  function makeFlaky(storage: Storage, failAt: { lineage?: number; settle?: number }): void {
    const calls = { lineage: 0, settle: 0 };
    // In place: the storage's repositories keep their own state, so they are not wrapped but patched.
    const lineageStatuses = storage.runs.lineageStatuses.bind(storage.runs);
    storage.runs.lineageStatuses = async (id) => {
      calls.lineage += 1;
      if (calls.lineage === failAt.lineage) throw unavailable();
      return lineageStatuses(id);
    };
    const settle = storage.budgets.settle.bind(storage.budgets);
    storage.budgets.settle = async (id, delta) => {
      calls.settle += 1;
      // The settlement landed, and its answer was lost with the connection.
      await settle(id, delta);
      if (calls.settle === failAt.settle) throw unavailable('unknown');
    };
  }

  async function runOnce(failAt: { lineage?: number; settle?: number }) {
    let modelCalls = 0;
    let toolCalls = 0;
    const tool = defineTool({
      effect: 'read_only',
      name: 'note_down',
      description: 'note_down (test)',
      inputSchema: z.object({}),
      execute: () => Promise.resolve(`noted ${(toolCalls += 1)}`),
    });
    harness = await createRuntimeHarness({
      scenarios: { gate: SCENARIO },
      extraTools: [tool],
      middleware: () =>
        Promise.resolve([
          {
            name: 'count',
            wrapModelCall(request, next) {
              modelCalls += 1;
              return next(request);
            },
          },
        ]),
    });
    const user = await harness.createUser('ann');
    const agent = await harness.createAgent(user, 'gate', {
      model: 'scripted:gate',
      tools: ['note_down'],
      budget: { model_calls: 10, tokens: 1_000_000 },
    });
    const conversation = await harness.createConversation(user, agent);
    makeFlaky(harness.storage, failAt);
    const { run } = await harness.runs.postMessage(user, conversation.id, { content: 'go' });
    const ended = (await harness.runs.await(user, run.id, 20_000)).run;
    const events = await harness.storage.events.list(run.id, 0, 1000);
    return { ended, events, modelCalls, toolCalls };
  }

  it('waits out an outage met by the stop check before a tool call: the turn the model answered is kept', async () => {
    // Call 1 checks before the first model call, call 2 before the tool call the model's answer asked for.
    const { ended, events, modelCalls, toolCalls } = await runOnce({ lineage: 2 });
    expect(ended.status).toBe('completed');
    expect(ended.attempt).toBe(1);
    expect(modelCalls).toBe(2);
    expect(toolCalls).toBe(1);
    expect(events.filter((event) => event.type === 'tool_call')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'metadata')).toHaveLength(1);
  });

  it('does not send again a settlement whose answer was lost, nor ask the model again', async () => {
    const { ended, modelCalls, toolCalls } = await runOnce({ settle: 1 });
    expect(ended.status).toBe('completed');
    expect(ended.attempt).toBe(1);
    expect(modelCalls).toBe(2);
    expect(toolCalls).toBe(1);
    const ledger = await harness?.storage.budgets.get(ended.id);
    // Two calls charged once each, whatever the lost answer.
    expect(ledger?.used.model_calls).toBe(2);
  });
});
