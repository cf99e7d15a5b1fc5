import { describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../core/records/run-event.js';
import { claimByDeadWorker } from '../../test/helpers/runtime/claim-by-dead-worker.js';
import { countingInserts } from '../../test/helpers/runtime/counting-inserts.js';
import { SLOW_SCENARIO, useSingleAgentRuntime } from '../../test/helpers/runtime/use-single-agent-runtime.js';
import { createRunEmitter } from './run-emitter.js';

const setup = useSingleAgentRuntime();

describe("a run emitter's announcement", () => {
  /** A running run held by a dead worker, its emitter counting inserts, and what the bus published. */
  async function runningRun() {
    const { h, user, conversation } = await setup(SLOW_SCENARIO, { startWorker: false });
    const { run: posted } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    await claimByDeadWorker(h.storage, posted.id);
    const run = await h.storage.runs.get(posted.id);
    if (!run) throw new Error('no run');
    const inserts: string[] = [];
    const published: RunEvent[] = [];
    await h.bus.subscribe(run.id, (event) => void published.push(event));
    const emitter = createRunEmitter(countingInserts(h.storage, inserts), h.bus, run);
    const stream = async () => (await h.storage.events.list(run.id, 0, 100)).map((e) => `${e.seq}:${e.type}`);
    return { emitter, inserts, published, stream };
  }

  it('leads the first append, in the same insert, before the buffered text', async () => {
    const { emitter, inserts, published, stream } = await runningRun();
    emitter.announce('metadata', { attempt: 1 });
    emitter.delta('some text');
    expect(inserts).toEqual([]);
    await emitter.commit([{ type: 'step', payload: { step: 1 } }]);
    await emitter.emit('tool_call', { tool: 'x' });
    expect(inserts).toHaveLength(2);
    expect(await stream()).toEqual(['1:metadata', '2:message_delta', '3:step', '4:tool_call']);
    expect(published.map((event) => event.type)).toEqual(['metadata', 'message_delta', 'step', 'tool_call']);
  });

  it('goes out on its own after a short wait, and with a flush', async () => {
    const { emitter, inserts, published, stream } = await runningRun();
    emitter.announce('metadata', { attempt: 1 });
    await vi.waitFor(() => expect(published.map((event) => event.type)).toEqual(['metadata']));
    expect(inserts).toHaveLength(1);

    emitter.announce('metadata', { attempt: 2 });
    await emitter.flush();
    expect(await stream()).toEqual(['1:metadata', '2:metadata']);
  });
});
