import {
  expectedAnswer,
  HELPER_CONFIG,
  HELPER_SCENARIO,
  MAIN_CONFIG,
  MAIN_SCENARIO,
} from './dispatch-scenario.js';
import { startEmbeddedTroupe } from './embedded.js';
import { roundSummary, summarize } from './stats.js';

/**
 * The dispatch suite's Troupe contender (the runtime in process: SQLite, in-process queue and bus, no HTTP) in
 * steady state: `warmup` unrecorded dispatches one at a time, then `task` timed ones. The dispatch suite times
 * its contender after 20 dispatches and 20 plain runs, while V8 is still optimising; this is the same call path
 * once it has finished, the reference for a cluster timed after its warm-up batches (BENCHMARKS.md, "A dispatch
 * one at a time, in steady state").
 */
export async function measureInProcessSteady(plan: { warmup: number; task: number }) {
  const env = await startEmbeddedTroupe({ scenarios: { main: MAIN_SCENARIO, helper: HELPER_SCENARIO } });
  try {
    const { troupe, user } = env;
    await env.createAgent('helper', HELPER_CONFIG, { subagent: true });
    const main = await env.createAgent('main', MAIN_CONFIG);
    const conversations = await env.createConversations(main, plan.warmup + plan.task);
    let next = 0;
    const once = async (): Promise<number> => {
      const conversation = conversations[next];
      if (!conversation) throw new Error('out of pre-created conversations');
      const input = `steady question ${next++}`;
      const started = performance.now();
      const { run } = await troupe.runs.postMessage(user, conversation.id, { content: input });
      const done = await troupe.runs.await(user, run.id, 60_000);
      const wall = performance.now() - started;
      if (done.run.status !== 'completed' || !done.run.output?.includes(expectedAnswer('task', input)))
        throw new Error(`in-process run ${run.id} ended ${done.run.status}`);
      return wall;
    };
    for (let i = 0; i < plan.warmup; i++) await once();
    const walls: number[] = [];
    for (let i = 0; i < plan.task; i++) walls.push(await once());
    return { warmup: plan.warmup, task: roundSummary(summarize(walls)) };
  } finally {
    await env.close();
  }
}
