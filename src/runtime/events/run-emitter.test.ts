import { describe, expect, it, vi } from 'vitest';
import type { Storage } from '../../core/ports/storage.js';
import type { RunEvent } from '../../core/records/run-event.js';
import type { StorageOutage } from '../../core/runs/storage-outage.js';
import { claimByDeadWorker } from '../../../test/helpers/runtime/claim-by-dead-worker.js';
import { countingInserts } from '../../../test/helpers/runtime/counting-inserts.js';
import { storageOutageError } from '../../../test/helpers/runtime/storage-outage-error.js';
import {
  SLOW_SCENARIO,
  useSingleAgentRuntime,
} from '../../../test/helpers/runtime/use-single-agent-runtime.js';
import { createRunEmitter } from './create-run-emitter.js';
import { sampleBody, sampleDraft } from '../../../test/helpers/sample-run-events.js';

const setup = useSingleAgentRuntime();

/**
 * A running run held by a dead worker, its emitter counting inserts, what the bus published, and its stream
 * and thread as `seq:type` and `step:role`.
 */
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
  const thread = async () =>
    (await h.storage.messages.list(run.thread_id)).map((m) => `${m.step}:${m.message.role}`);
  return { h, run, emitter, inserts, published, stream, thread };
}

describe("a run emitter's announcement", () => {
  it('leads the first append, in the same insert, before the buffered text', async () => {
    const { emitter, inserts, published, stream } = await runningRun();
    emitter.announce('metadata', sampleBody('metadata', { attempt: 1 }));
    emitter.delta('some text');
    expect(inserts).toEqual([]);
    await emitter.commit([sampleDraft('step', { step: 1 })]);
    await emitter.emit('tool_call', sampleBody('tool_call', { name: 'x' }));
    expect(inserts).toHaveLength(2);
    expect(await stream()).toEqual(['1:metadata', '2:message_delta', '3:step', '4:tool_call']);
    expect(published.map((event) => event.type)).toEqual(['metadata', 'message_delta', 'step', 'tool_call']);
  });

  it('goes out on its own after a short wait, and with a flush', async () => {
    const { emitter, inserts, published, stream } = await runningRun();
    emitter.announce('metadata', sampleBody('metadata', { attempt: 1 }));
    await vi.waitFor(() => expect(published.map((event) => event.type)).toEqual(['metadata']));
    expect(inserts).toHaveLength(1);

    emitter.announce('metadata', sampleBody('metadata', { attempt: 2 }));
    await emitter.flush();
    expect(await stream()).toEqual(['1:metadata', '2:metadata']);
  });
});

describe("a run emitter's held checkpoints", () => {
  const seqTypes = (events: readonly RunEvent[]) => events.map((event) => `${event.seq}:${event.type}`);

  const toolCall = { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'calling' }] };
  const answer = { role: 'assistant' as const, content: 'done' };

  it('go with the next commit, first, in its one transaction and one insert', async () => {
    const { emitter, inserts, published, stream, thread } = await runningRun();
    emitter.hold([sampleDraft('tool_call', { step: 1 })], { step: 1, messages: [toolCall] });
    emitter.hold([sampleDraft('tool_result', { step: 1 })], { step: 1, messages: [answer] });
    expect(inserts).toEqual([]);
    const written = await emitter.commit([sampleDraft('step', { step: 2 })], undefined, {
      step: 2,
      messages: [answer],
    });
    expect(written.map((event) => event.type)).toEqual(['step']);
    expect(inserts).toHaveLength(1);
    expect(await stream()).toEqual(['1:tool_call', '2:tool_result', '3:step']);
    expect(seqTypes(published)).toEqual(['1:tool_call', '2:tool_result', '3:step']);
    expect(await thread()).toEqual(['0:user', '1:assistant', '1:assistant', '2:assistant']);
  });

  it('go out on their own after a short wait, with a flush, and before an emitted event', async () => {
    const { emitter, stream, thread } = await runningRun();
    emitter.hold([sampleDraft('tool_call')], { step: 1, messages: [toolCall] });
    await vi.waitFor(async () => expect(await stream()).toEqual(['1:tool_call']));
    emitter.hold([sampleDraft('tool_result')], { step: 1, messages: [answer] });
    await emitter.flush();
    emitter.hold([sampleDraft('tool_call')], { step: 2, messages: [toolCall] });
    await emitter.emit('error', sampleBody('error'));
    expect(await stream()).toEqual(['1:tool_call', '2:tool_result', '3:tool_call', '4:error']);
    expect(await thread()).toEqual(['0:user', '1:assistant', '1:assistant', '2:assistant']);
  });

  it("are written by an adopting transaction, and the run's appends wait for it to settle", async () => {
    const { h, emitter, published, stream, thread } = await runningRun();
    emitter.delta('thinking');
    emitter.hold([sampleDraft('tool_call')], { step: 1, messages: [toolCall] });
    const adopted = await emitter.adopt();
    if (!adopted) throw new Error('nothing to adopt');
    const later = emitter.emit('error', sampleBody('error'));
    const appended = await h.storage.sharedCommitTransaction(async (tx) => {
      await tx.messages.appendBatches([adopted.messages]);
      const batch = adopted.events;
      const [own = []] = await tx.events.appendBatches([
        { ...batch, events: [...batch.events, sampleDraft('subagent_update')] },
      ]);
      return own;
    });
    expect(await stream()).toEqual(['1:message_delta', '2:tool_call', '3:subagent_update']);
    expect(seqTypes(published)).toEqual([]);
    await adopted.settle(appended.slice(0, 2));
    await later;
    expect(await stream()).toEqual(['1:message_delta', '2:tool_call', '3:subagent_update', '4:error']);
    // The adopter publishes its own events (here: none) after the held ones; the run's next append follows.
    expect(seqTypes(published)).toEqual(['1:message_delta', '2:tool_call', '4:error']);
    expect(await thread()).toEqual(['0:user', '1:assistant']);
  });

  it('are held again when the adopting transaction rolls back, and written before what comes next', async () => {
    const { h, emitter, stream, thread } = await runningRun();
    emitter.hold([sampleDraft('tool_call')], { step: 1, messages: [toolCall] });
    const adopted = await emitter.adopt();
    if (!adopted) throw new Error('nothing to adopt');
    await expect(
      h.storage.sharedCommitTransaction(async (tx) => {
        await tx.messages.appendBatches([adopted.messages]);
        throw new Error('the start failed');
      }),
    ).rejects.toThrow('the start failed');
    await adopted.settle(undefined);
    expect(await stream()).toEqual([]);
    await emitter.commit([sampleDraft('tool_result')], undefined, { step: 1, messages: [answer] });
    expect(await stream()).toEqual(['1:tool_call', '2:tool_result']);
    expect(await thread()).toEqual(['0:user', '1:assistant', '1:assistant']);
  });

  it('are not adoptable once work was queued after them, and a second adopter waits for the first', async () => {
    const first = await runningRun();
    first.emitter.hold([sampleDraft('tool_call')], { step: 1, messages: [toolCall] });
    const emitted = first.emitter.emit('error', sampleBody('error'));
    expect(await first.emitter.adopt()).toBeUndefined();
    await emitted;
    expect(await first.stream()).toEqual(['1:tool_call', '2:error']);

    const { emitter } = first;
    emitter.hold([sampleDraft('tool_call')], { step: 2, messages: [toolCall] });
    const adopted = await emitter.adopt();
    if (!adopted) throw new Error('nothing to adopt');
    let secondDone = false;
    const second = emitter.adopt().then((result) => ((secondDone = true), result));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(secondDone).toBe(false);
    await adopted.settle(undefined);
    expect(await second).toBeUndefined();
    await emitter.flush();
    expect(await first.stream()).toEqual(['1:tool_call', '2:error', '3:tool_call']);
  });
});

/** What a statement sent on a connection that died before its answer fails with (`committed: 'unknown'`). */
const lostAnswer = () => storageOutageError('unknown');

/** An outage that is over at once, recording each wait in `waited`. */
const instantOutage = (waited: string[]): StorageOutage => ({
  waitOut: () => Promise.resolve(void waited.push('waited')),
  settle: () => Promise.resolve(undefined),
});

describe('a run emitter whose COMMIT met a dying connection (outcome unknown)', () => {
  const answer = { role: 'assistant' as const, content: 'done' };

  /**
   * The run's emitter over a storage whose next transaction fails as if its COMMIT's answer was lost: `landed`
   * says whether the transaction committed first. The outage is over at once.
   */
  async function withLostCommit(landed: boolean) {
    const world = await runningRun();
    const { storage } = world.h;
    let transactions = 0;
    let failNext = true;
    const flaky = Object.create(storage) as Storage;
    flaky.sharedCommitTransaction = async (work, key) => {
      transactions += 1;
      if (!failNext) return storage.sharedCommitTransaction(work, key);
      failNext = false;
      if (landed) await storage.sharedCommitTransaction(work, key);
      throw lostAnswer();
    };
    const waited: string[] = [];
    const emitter = createRunEmitter(flaky, world.h.bus, world.run, instantOutage(waited));
    return { ...world, emitter, waited, transactions: () => transactions };
  }

  it("sends the step again when its messages did not land: the model's turn is kept, not asked again", async () => {
    const { emitter, waited, transactions, stream, thread } = await withLostCommit(false);
    await emitter.commit([sampleDraft('step', { step: 1 })], undefined, { step: 1, messages: [answer] });
    expect(waited).toEqual(['waited']);
    expect(transactions()).toBe(2);
    expect(await stream()).toEqual(['1:step']);
    expect(await thread()).toEqual(['0:user', '1:assistant']);
  });

  it('fails as before when they landed: the attempt starts over from what is committed, nothing written twice', async () => {
    const { emitter, transactions, stream, thread } = await withLostCommit(true);
    await expect(
      emitter.commit([sampleDraft('step', { step: 1 })], undefined, { step: 1, messages: [answer] }),
    ).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(transactions()).toBe(1);
    expect(await stream()).toEqual(['1:step']);
    expect(await thread()).toEqual(['0:user', '1:assistant']);
  });
});

describe('a run emitter whose append outside a transaction lost its answer (outcome unknown)', () => {
  /**
   * The run's emitter over a storage whose next append after `failAfter` good ones loses its answer: `landed`
   * says whether its insert was done first. Its outage is over at once.
   */
  async function withLostAppend(landed: boolean, failAfter = 0) {
    const world = await runningRun();
    const { storage } = world.h;
    const appends: number[] = [];
    const events = Object.create(storage.events) as Storage['events'];
    events.appendBatches = async (batches) => {
      appends.push(batches.length);
      if (appends.length !== failAfter + 1) return storage.events.appendBatches(batches);
      if (landed) await storage.events.appendBatches(batches);
      throw lostAnswer();
    };
    const flaky = Object.create(storage, { events: { value: events } }) as Storage;
    const waited: string[] = [];
    const emitter = createRunEmitter(flaky, world.h.bus, world.run, instantOutage(waited));
    return { ...world, emitter, waited, appends };
  }

  it("sends the attempt's first write again when it did not land, found by its metadata: the turn goes on", async () => {
    const { emitter, waited, appends, stream, published } = await withLostAppend(false);
    emitter.announce('metadata', sampleBody('metadata', { attempt: 1 }));
    emitter.delta('streamed text');
    await emitter.flush();
    expect(waited).toEqual(['waited']);
    expect(appends).toHaveLength(2);
    await emitter.emit('tool_call', sampleBody('tool_call', { name: 'x' }));
    expect(await stream()).toEqual(['1:metadata', '2:message_delta', '3:tool_call']);
    expect(published.map((event) => event.type)).toEqual(['metadata', 'message_delta', 'tool_call']);
  });

  it('takes the rows of one that landed as its answer, after the last number it saw: nothing written twice', async () => {
    const { emitter, appends, stream, published } = await withLostAppend(true, 1);
    await emitter.emit('tool_call', sampleBody('tool_call', { name: 'x' }));
    const event = await emitter.emit('tool_call', sampleBody('tool_call', { name: 'y' }));
    expect(event).toMatchObject({ seq: 2, type: 'tool_call', payload: { name: 'y' } });
    expect(appends).toHaveLength(2);
    await emitter.emit('error', sampleBody('error'));
    expect(await stream()).toEqual(['1:tool_call', '2:tool_call', '3:error']);
    expect(published.map((entry) => entry.seq)).toEqual([1, 2, 3]);
  });

  it("reads past another writer's events after the last number it saw, and sends again what is not there", async () => {
    const { h, run, emitter, appends, stream } = await withLostAppend(false, 1);
    await emitter.emit('tool_call', sampleBody('tool_call', { name: 'x' }));
    // A child's update or a verdict lands in a parent's stream between two of its own writes.
    await h.storage.events.append({ run_id: run.id, type: 'error', payload: { message: 'other' } });
    await emitter.emit('tool_call', sampleBody('tool_call', { name: 'y' }));
    expect(appends).toHaveLength(3);
    expect(await stream()).toEqual(['1:tool_call', '2:error', '3:tool_call']);
  });

  it('fails as before without an anchor (no number seen, no metadata): the attempt starts over', async () => {
    const { emitter, waited, appends, stream } = await withLostAppend(false);
    await expect(emitter.emit('tool_call', sampleBody('tool_call', { name: 'x' }))).rejects.toMatchObject({
      code: 'storage_unavailable',
    });
    expect(waited).toEqual([]);
    expect(appends).toHaveLength(1);
    expect(await stream()).toEqual([]);
  });
});
