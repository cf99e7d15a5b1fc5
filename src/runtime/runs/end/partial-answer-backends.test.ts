import { describe, expect, it } from 'vitest';
import { BACKENDS, startBackend, type ScriptRule } from '../../../../test/helpers/model-backends.js';
import {
  closeLater,
  expectConversationGoesOn,
  HELPER,
  MAIN,
  partialAnswerWorld as setup,
  partialsOf,
  post,
} from '../../../../test/helpers/runtime/partial-answer-world.js';

describe.each(BACKENDS)('a partial answer is a valid prompt for the next run (%s)', (name) => {
  const rules: ScriptRule[] = [{ steps: [{ text: 'fresh answer' }] }];

  it('lease expiry under the fail policy keeps the text the dead worker had streamed', async () => {
    const backend = await startBackend(name, rules);
    closeLater(backend);
    const world = await setup({
      startWorker: false,
      leasePolicy: 'fail',
      scenarios: { main: MAIN, helper: HELPER, ...backend.scenarios },
      models: backend.models,
      model: name === 'scripted' ? 'scripted:main' : backend.spec,
    });
    const run = await post(world, 'tell me');
    // A worker claimed the run, streamed part of its answer and died.
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
    for (const payload of [{}, { text: 'Half an ' }, { text: 'answer, then ' }]) {
      await world.h.storage.events.append({
        run_id: run.id,
        type: payload.text ? 'message_delta' : 'metadata',
        payload,
      });
    }
    expect((await world.h.reconciler.reconcileOnce()).failed).toEqual([run.id]);
    const partials = partialsOf(await world.h.storage.messages.list(world.conversation.thread_id));
    expect(partials).toEqual([
      { run_id: run.id, step: 1, text: 'Half an answer, then ', run_status: 'failed' },
    ]);
    await world.h.executor.start();
    world.h.queue.process((runId) => world.h.executor.execute(runId));
    await expectConversationGoesOn(world, 'Half an answer, then ');
    if (name !== 'scripted')
      expect(JSON.stringify(backend.requests.at(-1)?.body.messages)).toContain('Half an answer, then ');
  });
});
