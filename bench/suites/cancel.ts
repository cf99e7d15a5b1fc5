/**
 * Benchmark: the stop guarantee's cost (docs/budgets.md). A parent starts 100 background children, each sitting in
 * a slow model call; once all are running the parent is cancelled, and the time from the cancel request to
 * the whole tree being terminal is measured (the API call returns after the cascade; the clock stops when the
 * last run's `end` event is published). Repeated, so the figure is a median and a p99 over rounds.
 */
import type { RunEvent } from '../../src/core/records/run-event.js';
import { isTerminalStatus } from '../../src/core/records/run.js';
import { startEmbeddedTroupe } from '../lib/embedded.js';
import { epochMs, round, roundSummary, summarize } from '../lib/stats.js';
import { progress, runSuite } from '../lib/suite.js';

function parentScenario(children: number): string {
  return JSON.stringify({
    rules: [
      {
        steps: [
          {
            tool_calls: Array.from({ length: children }, (_, index) => ({
              name: 'subagent_start',
              args: { subagent_slug: 'worker', description: `Part ${index + 1}` },
            })),
          },
          { tool_calls: [{ name: 'subagent_await', args: { run_ids: '{{run_ids}}', mode: 'all' } }] },
          { text: 'done' },
        ],
      },
    ],
  });
}

// A child that would stream for a minute: the cancel has to stop it mid-call.
const WORKER_SCENARIO = JSON.stringify({
  rules: [{ steps: [{ text: 'x'.repeat(600), delay_ms: 60_000, chunk_size: 10 }] }],
});

await runSuite('cancel', async ({ quick }) => {
  const children = quick ? 10 : 100;
  const rounds = quick ? 2 : 10;
  const env = await startEmbeddedTroupe({
    scenarios: { parent: parentScenario(children), worker: WORKER_SCENARIO },
    limits: { maxActiveChildrenPerRun: children, maxActiveChildrenPerUser: children * 2 },
    workerConcurrency: children + 1,
  });
  const { troupe, user } = env;
  await env.createAgent('worker', { model: 'scripted:worker' }, { subagent: true });
  const parent = await env.createAgent('parent', { model: 'scripted:parent', subagents: ['worker'] });
  const conversations = await env.createConversations(parent, rounds);

  let tree = new Set<string>();
  let lastEnd = 0;
  const original = troupe.bus.publish.bind(troupe.bus);
  troupe.bus.publish = (event: RunEvent) => {
    if (event.type === 'end' && tree.has(event.run_id)) lastEnd = Math.max(lastEnd, epochMs());
    return original(event);
  };

  const toTerminal: number[] = [];
  const apiReturn: number[] = [];
  const failures: string[] = [];
  for (const [index, conversation] of conversations.entries()) {
    const { run } = await troupe.runs.postMessage(user, conversation.id, { content: `round ${index + 1}` });
    // Wait until every child is running (in its slow model call).
    for (;;) {
      const kids = await troupe.storage.runs.listChildren(run.id);
      if (kids.length === children && kids.every((kid) => kid.status === 'running')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const members = await troupe.storage.runs.listByRoot(run.id);
    tree = new Set(members.map((member) => member.id));
    lastEnd = 0;
    const started = epochMs();
    await troupe.runs.cancel(user, run.id);
    apiReturn.push(epochMs() - started);
    for (;;) {
      const now = await troupe.storage.runs.listByRoot(run.id);
      if (now.every((member) => isTerminalStatus(member.status))) {
        if (!now.every((member) => member.status === 'cancelled'))
          failures.push(`round ${index + 1}: not all cancelled`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    toTerminal.push(lastEnd - started);
    progress(
      'cancel',
      `round ${index + 1}: ${round(lastEnd - started)} ms to a terminal tree of ${members.length} runs`,
    );
  }
  await env.close();
  return {
    children,
    rounds,
    cancel_to_terminal_tree_ms: roundSummary(summarize(toTerminal)),
    cancel_api_return_ms: roundSummary(summarize(apiReturn)),
    failures,
    ok: failures.length === 0,
  };
});
