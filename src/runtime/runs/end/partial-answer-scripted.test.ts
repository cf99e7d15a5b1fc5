import { describe, expect, it } from 'vitest';
import {
  deltasStored,
  expectConversationGoesOn,
  LONG,
  partialAnswerWorld as setup,
  partialsOf,
  post,
  settle,
  streamedText,
} from '../../../../test/helpers/runtime/partial-answer-world.js';

describe('a run that ends mid-answer keeps what it said (scripted model)', () => {
  it('cancel while the answer streams: the streamed text is stored, marked cancelled, before the end', async () => {
    const world = await setup();
    const run = await post(world, 'slow please');
    await deltasStored(world, run.id, 2);
    await world.h.runs.cancel(world.alice, run.id);
    expect((await settle(world, run.id)).status).toBe('cancelled');
    const said = await streamedText(world, run.id);
    expect(said.length).toBeGreaterThanOrEqual(8);
    expect(LONG.startsWith(said)).toBe(true);
    expect(said).not.toBe(LONG);
    const thread = await world.h.storage.messages.list(world.conversation.thread_id);
    expect(thread.map((entry) => entry.message.role)).toEqual(['user', 'assistant']);
    expect(partialsOf(thread)).toEqual([{ run_id: run.id, step: 1, text: said, run_status: 'cancelled' }]);
    // The cancelled run's output stays empty: the partial answer lives in the thread.
    expect((await world.h.storage.runs.get(run.id))?.output).toBeNull();
    await expectConversationGoesOn(world, said);
  });

  it('cancel mid-answer after a tool step: the partial turn follows the tool result', async () => {
    const world = await setup();
    const run = await post(world, 'look first');
    await deltasStored(world, run.id, 3);
    await world.h.runs.cancel(world.alice, run.id);
    expect((await settle(world, run.id)).status).toBe('cancelled');
    const thread = await world.h.storage.messages.list(world.conversation.thread_id);
    expect(thread.map((entry) => [entry.message.role, entry.step])).toEqual([
      ['user', 0],
      ['assistant', 1],
      ['tool', 1],
      ['assistant', 2],
    ]);
    // Only the text of the unfinished call: "Looking." belongs to the checkpointed first turn.
    const [partial] = partialsOf(thread);
    expect(partial?.text).not.toContain('Looking.');
    expect(LONG.startsWith(partial?.text ?? 'x')).toBe(true);
    await expectConversationGoesOn(world, partial?.text ?? '');
  });

  it('failure mid-answer: the streamed text is stored, marked failed', async () => {
    const world = await setup();
    const run = await post(world, 'break it');
    expect(await settle(world, run.id)).toMatchObject({
      status: 'failed',
      error: { type: 'model_call_failed' },
    });
    const said = await streamedText(world, run.id);
    const partials = partialsOf(await world.h.storage.messages.list(world.conversation.thread_id));
    expect(partials).toEqual([{ run_id: run.id, step: 1, text: said, run_status: 'failed' }]);
    await expectConversationGoesOn(world, said);
  });

  it('execution_tree_closed: a child cut off mid-answer keeps its text in its own thread', async () => {
    const world = await setup();
    const run = await post(world, 'ask the helper');
    await expect
      .poll(async () => (await world.h.storage.runs.listChildren(run.id)).length, { timeout: 15_000 })
      .toBe(1);
    const [child] = await world.h.storage.runs.listChildren(run.id);
    if (!child) throw new Error('no child run');
    await deltasStored(world, child.id, 2);
    await world.h.runs.cancel(world.alice, run.id);
    expect(await settle(world, child.id)).toMatchObject({
      status: 'cancelled',
      error: { type: 'execution_tree_closed' },
    });
    const said = await streamedText(world, child.id);
    const childThread = await world.h.storage.messages.list(child.thread_id);
    expect(partialsOf(childThread)).toEqual([
      { run_id: child.id, step: 1, text: said, run_status: 'cancelled' },
    ]);
  });

  it('a checkpointed turn whose run died before reporting it is not stored twice', async () => {
    const world = await setup({ startWorker: false, leasePolicy: 'fail' });
    const run = await post(world, 'slow please');
    await world.h.storage.runs.update(
      run.id,
      { status: ['pending'] },
      {
        status: 'running',
        worker_id: 'wrk_dead',
        lease_expires_at: new Date(Date.now() - 1000).toISOString(),
        started_at: new Date().toISOString(),
        attempt: 1,
      },
    );
    await world.h.storage.events.append({ run_id: run.id, type: 'metadata', payload: {} });
    await world.h.storage.events.append({
      run_id: run.id,
      type: 'message_delta',
      payload: { text: 'All said.' },
    });
    await world.h.storage.messages.append(world.conversation.thread_id, run.id, 1, [
      { role: 'assistant', content: [{ type: 'text', text: 'All said.' }] },
    ]);
    expect((await world.h.reconciler.reconcileOnce()).failed).toEqual([run.id]);
    const thread = await world.h.storage.messages.list(world.conversation.thread_id);
    expect(thread.map((entry) => entry.message.role)).toEqual(['user', 'assistant']);
    expect(partialsOf(thread)).toEqual([]);
  });

  it('a worker shutdown mid-answer stores nothing: the run goes back to pending, to be resumed', async () => {
    const world = await setup();
    const run = await post(world, 'slow please');
    await deltasStored(world, run.id, 2);
    await world.h.executor.stop();
    expect((await world.h.storage.runs.get(run.id))?.status).toBe('pending');
    expect(partialsOf(await world.h.storage.messages.list(world.conversation.thread_id))).toEqual([]);
  });
});
