import { describe, expect, it } from 'vitest';
import { claimByDeadWorker } from '../../../../test/helpers/runtime/claim-by-dead-worker.js';
import {
  ECHO_SCENARIO as ECHO,
  useSingleAgentRuntime,
} from '../../../../test/helpers/runtime/use-single-agent-runtime.js';

const setup = useSingleAgentRuntime();

describe('run service: leases', () => {
  async function crashMidRun(policy: 'resume' | 'fail') {
    const { h, user, conversation } = await setup(ECHO, {
      startWorker: false,
      leaseMs: 60_000,
      leasePolicy: policy,
    });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'survive' });
    // A worker that claimed the run, checkpointed step 1, then died: its lease is already over.
    await claimByDeadWorker(h.storage, run.id);
    await h.storage.messages.append(conversation.thread_id, run.id, 1, [
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'write_file',
            input: { path: 'out.txt', content: 'survive' },
          },
        ],
      },
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
    ]);
    return { h, user, run, conversation };
  }

  it('resumes a run from its last checkpoint when its worker vanished', async () => {
    const { h, user, run, conversation } = await crashMidRun('resume');
    const report = await h.reconciler.reconcileOnce();
    expect(report.resumed).toEqual([run.id]);
    await h.executor.start();
    h.queue.process((runId) => h.executor.execute(runId));
    const awaited = await h.runs.await(user, run.id, 10_000);
    expect(awaited.run.status).toBe('completed');
    expect(awaited.run.attempt).toBe(2);
    // Step 1 was not replayed: exactly one write_file call in the thread.
    const calls = (await h.storage.messages.list(conversation.thread_id)).filter(
      (entry) =>
        entry.message.role === 'assistant' && JSON.stringify(entry.message.content).includes('write_file'),
    );
    expect(calls).toHaveLength(1);
  });

  it('fails the run with worker_lease_expired under the fail policy', async () => {
    const { h, user, run } = await crashMidRun('fail');
    const report = await h.reconciler.reconcileOnce();
    expect(report.failed).toEqual([run.id]);
    const failed = await h.runs.getRun(user, run.id);
    expect(failed.status).toBe('failed');
    expect(failed.error?.type).toBe('worker_lease_expired');
  });

  it('leaves a run whose lease is still live alone', async () => {
    const { h, run } = await crashMidRun('resume');
    await h.storage.runs.update(
      run.id,
      { status: ['running'] },
      { lease_expires_at: new Date(Date.now() + 60_000).toISOString() },
    );
    const report = await h.reconciler.reconcileOnce();
    expect(report.resumed).toEqual([]);
  });
});
