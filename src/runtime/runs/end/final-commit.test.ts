import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../core/clock.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import { claimByDeadWorker } from '../../../../test/helpers/runtime/claim-by-dead-worker.js';
import { commitFinal, FINAL_STEP } from '../../../../test/helpers/runtime/commit-final.js';
import { countingInserts } from '../../../../test/helpers/runtime/counting-inserts.js';
import {
  ECHO_SCENARIO,
  useSingleAgentRuntime,
} from '../../../../test/helpers/runtime/use-single-agent-runtime.js';
import { createRunEmitter } from '../../events/create-run-emitter.js';
import { endedRunOf } from './ended-run-of.js';
import { endRunIn } from './run-finalizer.js';

const setup = useSingleAgentRuntime();

describe('the final commit of a run', () => {
  async function runningRun() {
    const { h, user, conversation } = await setup(ECHO_SCENARIO, { startWorker: false });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'finish' });
    await claimByDeadWorker(h.storage, run.id);
    const claimed = await h.storage.runs.get(run.id);
    if (!claimed) throw new Error('no run');
    return { h, run: claimed };
  }

  const finalStep = FINAL_STEP;

  it("appends the step's events and the run's end in one insert, the end last", async () => {
    const { h, run } = await runningRun();
    const inserts: string[] = [];
    const emitter = createRunEmitter(countingInserts(h.storage, inserts), h.bus, run);
    const published: RunEvent[] = [];
    await h.bus.subscribe(run.id, (event) => void published.push(event));
    emitter.delta('the answer');
    const written = await emitter.commit(finalStep, (tx, append) =>
      endRunIn(tx, systemClock, {
        runId: run.id,
        expect: { status: ['running'], worker_id: 'wrk_dead' },
        write: { status: 'completed', output: 'the answer' },
        append,
      }).then((ended) => ended?.events),
    );
    expect(inserts).toEqual([run.id]);
    expect(written.map((event) => [event.seq, event.type])).toEqual([
      [1, 'message_delta'],
      [2, 'step'],
      [3, 'end'],
    ]);
    expect((await h.storage.events.list(run.id, 0, 10)).map((event) => event.type)).toEqual([
      'message_delta',
      'step',
      'end',
    ]);
    // Committed before published, and published in seq order.
    expect(published.map((event) => event.seq)).toEqual([1, 2, 3]);
    expect((await h.storage.runs.get(run.id))?.status).toBe('completed');
  });

  it('commits the checkpoint alone when a cancel moved the status meanwhile', async () => {
    const { h, run } = await runningRun();
    await h.storage.runs.update(run.id, { status: ['running'] }, { status: 'cancel_requested' });
    const emitter = createRunEmitter(h.storage, h.bus, run);
    let ended: unknown = 'not called';
    const written = await emitter.commit(finalStep, async (tx, append) => {
      ended = await endRunIn(tx, systemClock, {
        runId: run.id,
        expect: { status: ['running'], worker_id: 'wrk_dead' },
        write: { status: 'completed', output: 'late' },
        append,
      });
    });
    expect(ended).toBeUndefined();
    expect(written.map((event) => event.type)).toEqual(['step']);
    expect((await h.storage.events.list(run.id, 0, 10)).map((event) => event.type)).toEqual(['step']);
    expect((await h.storage.runs.get(run.id))?.status).toBe('cancel_requested');
  });

  it('sends the end with its compare-and-set from the row the worker holds, in one try', async () => {
    const { h, run } = await runningRun();
    const attempts: boolean[] = [];
    const written = await commitFinal(h, run, attempts, { delta: 'the answer' });
    expect(attempts).toEqual([false]);
    expect(written.map((event) => [event.seq, event.type])).toEqual([
      [1, 'message_delta'],
      [2, 'step'],
      [3, 'end'],
    ]);
    const ended = await h.storage.runs.get(run.id);
    expect(ended).toMatchObject({ status: 'completed', output: 'the answer', worker_id: null });
    // The end says what the careful ending would have read back from the row.
    expect(written[2]?.payload).toMatchObject({ status: 'completed', output: 'the answer', depth: 0 });
    expect(endedRunOf(written[2] as RunEvent)).toEqual(ended);
  });

  it('runs the commit again, careful, when the speculative compare-and-set missed: the step alone, no end', async () => {
    const { h, run } = await runningRun();
    await h.storage.runs.update(run.id, { status: ['running'] }, { status: 'cancel_requested' });
    const attempts: boolean[] = [];
    const written = await commitFinal(h, run, attempts, { delta: 'the answer' });
    expect(attempts).toEqual([false, true]);
    expect(written.map((event) => [event.seq, event.type])).toEqual([
      [1, 'message_delta'],
      [2, 'step'],
    ]);
    // Nothing of the first try survived: no end, seq gapless, the status the cancel left.
    expect((await h.storage.events.list(run.id, 0, 10)).map((event) => [event.seq, event.type])).toEqual([
      [1, 'message_delta'],
      [2, 'step'],
    ]);
    expect((await h.storage.runs.get(run.id))?.status).toBe('cancel_requested');
  });

  it('lets the commits of runs executing at once share one transaction, each still atomic', async () => {
    const { h, run } = await runningRun();
    // A second run on a thread of its own (one active run per thread).
    const user = await h.storage.users.get(run.user_id);
    const first = await h.storage.conversations.get(run.conversation_id);
    if (!user || !first) throw new Error('no user or conversation');
    const second = await h.storage.conversations.create({ ...first, thread_id: 'thr_second' });
    const { run: other } = await h.runs.postMessage(user, second.id, { content: 'other' });
    const transactions: Storage[] = [];
    const commitOf = (target: typeof run, fail: boolean) =>
      createRunEmitter(h.storage, h.bus, target).commit(finalStep, (tx) => {
        transactions.push(tx);
        return fail ? Promise.reject(new Error('this step fails')) : Promise.resolve();
      });
    const [kept, failed] = await Promise.allSettled([commitOf(run, false), commitOf(other, true)]);
    // One group: both works ran in the same transaction (SQLite group commit), one COMMIT for both.
    expect(transactions).toHaveLength(2);
    expect(transactions[0]).toBe(transactions[1]);
    expect(kept.status).toBe('fulfilled');
    expect(failed).toMatchObject({ status: 'rejected', reason: new Error('this step fails') });
    expect((await h.storage.events.list(run.id, 0, 10)).map((event) => event.type)).toEqual(['step']);
    expect(await h.storage.events.list(other.id, 0, 10)).toEqual([]);
  });
});
