import { describe, expect, it, vi } from 'vitest';
import type { RunEventBatch } from '../core/ports/storage.js';
import type { RunEvent } from '../core/records/run-event.js';
import { claimByDeadWorker } from '../../test/helpers/runtime/claim-by-dead-worker.js';
import { countingInserts } from '../../test/helpers/runtime/counting-inserts.js';
import { SLOW_SCENARIO, useSingleAgentRuntime } from '../../test/helpers/runtime/use-single-agent-runtime.js';
import { createRunEmitter } from './run-emitter.js';

const setup = useSingleAgentRuntime();

describe("a run emitter's announcement", () => {
  /** Two running runs held by a dead worker: the one that emits, and another whose stream `besides` names. */
  async function twoRuns() {
    const { h, user, agent, conversation } = await setup(SLOW_SCENARIO, { startWorker: false });
    const other = await h.createConversation(user, agent);
    const runs = [];
    for (const id of [conversation.id, other.id]) {
      const { run } = await h.runs.postMessage(user, id, { content: 'go' });
      await claimByDeadWorker(h.storage, run.id);
      const claimed = await h.storage.runs.get(run.id);
      if (!claimed) throw new Error('no run');
      runs.push(claimed);
    }
    const [run, beside] = runs;
    if (!run || !beside) throw new Error('two runs were posted');
    const inserts: string[] = [];
    const published: RunEvent[] = [];
    for (const { id } of runs) await h.bus.subscribe(id, (event) => void published.push(event));
    const emitter = createRunEmitter(countingInserts(h.storage, inserts), h.bus, run);
    const types = async (runId: string) =>
      (await h.storage.events.list(runId, 0, 100)).map((e) => `${e.seq}:${e.type}`);
    const update = (state: string, whileActive = true): RunEventBatch => ({
      run_id: beside.id,
      events: [{ type: 'subagent_update', payload: { state } }],
      whileActive,
    });
    return { h, run, beside, emitter, inserts, published, types, update };
  }

  it("leads the first append, its other stream's batch joined to the one that append names", async () => {
    const { run, beside, emitter, inserts, published, types, update } = await twoRuns();
    emitter.announce('metadata', { attempt: 1 }, [update('running')]);
    expect(inserts).toEqual([]);
    emitter.delta('some text');
    await emitter.commit([{ type: 'step', payload: { step: 1 } }]);
    await emitter.emit('tool_call', { tool: 'x' }, [update('progress')]);
    // One insert for the announcement, the text and the step; one for the next event.
    expect(inserts).toEqual([`${run.id}+${beside.id}`, `${run.id}+${beside.id}`]);
    expect(await types(run.id)).toEqual(['1:metadata', '2:message_delta', '3:step', '4:tool_call']);
    const updates = published.filter((event) => event.run_id === beside.id);
    expect(updates.map((event) => event.payload.state)).toEqual(['running', 'progress']);
    expect(published.filter((event) => event.run_id === run.id).map((event) => event.type)).toEqual([
      'metadata',
      'message_delta',
      'step',
      'tool_call',
    ]);
  });

  it('goes out on its own after a short wait, and before any flush', async () => {
    const { run, emitter, inserts, published, types, update } = await twoRuns();
    emitter.announce('metadata', { attempt: 1 }, [update('running')]);
    await vi.waitFor(() => expect(published.some((event) => event.type === 'metadata')).toBe(true));
    expect(inserts).toHaveLength(1);
    expect(await types(run.id)).toEqual(['1:metadata']);
    expect(published.map((event) => event.type)).toEqual(['metadata', 'subagent_update']);

    emitter.announce('metadata', { attempt: 2 });
    await emitter.flush();
    expect(await types(run.id)).toEqual(['1:metadata', '2:metadata']);
  });

  it('goes first in a statement of its own when the next batch for the same stream is guarded differently', async () => {
    const { run, beside, emitter, inserts, types, update } = await twoRuns();
    emitter.announce('metadata', { attempt: 1 }, [update('running')]);
    await emitter.emit('error', { message: 'x' }, [update('unguarded', false)]);
    expect(inserts).toEqual([`${run.id}+${beside.id}`, `${run.id}+${beside.id}`]);
    expect(await types(run.id)).toEqual(['1:metadata', '2:error']);
    expect(await types(beside.id)).toEqual(['1:subagent_update', '2:subagent_update']);
  });
});
