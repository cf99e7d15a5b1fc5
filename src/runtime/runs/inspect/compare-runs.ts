import type { PriceTable } from '../../../core/budgets/price-table.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { ComparedRun, ComparedUsage, RunComparison } from '../../../core/records/run-comparison.js';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import type { Actor } from '../../../core/records/user.js';
import { comparedSteps } from '../../../core/runs/compared-steps.js';
import { diffText } from '../../../core/runs/text-diff.js';
import { inlineSubagentName } from '../../../core/subagents/inline-subagent-agent.js';
import { previewOf } from './list-runs.js';
import { buildRunTree, type RunTreeNode, type TreeUsage } from './run-tree.js';
import type { RunViews } from './run-views.js';

function usageOf(usage: TreeUsage): ComparedUsage {
  const { input_tokens, output_tokens, total_tokens, model_calls, cost_usd } = usage;
  return { input_tokens, output_tokens, total_tokens, model_calls, cost_usd };
}

function durationOf(node: RunTreeNode): number | null {
  const { started_at: started, finished_at: finished } = node.run;
  return started === null || finished === null
    ? null
    : Math.max(0, Date.parse(finished) - Date.parse(started));
}

function findNode(node: RunTreeNode, runId: string): RunTreeNode | undefined {
  if (node.run.id === runId) return node;
  for (const child of node.children) {
    const found = findNode(child, runId);
    if (found) return found;
  }
  return undefined;
}

async function compared(
  storage: Storage,
  node: RunTreeNode,
  threads: Map<string, ThreadMessage[]>,
): Promise<ComparedRun> {
  const { run } = node;
  let thread = threads.get(run.thread_id);
  if (thread === undefined) {
    thread = await storage.messages.list(run.thread_id);
    threads.set(run.thread_id, thread);
  }
  const steps = comparedSteps(run, thread);
  const calls = steps.filter((step) => !step.copied).flatMap((step) => step.tool_calls);
  const byName: Record<string, number> = {};
  for (const call of calls) byName[call.name] = (byName[call.name] ?? 0) + 1;
  const children: ComparedRun[] = [];
  for (const child of node.children) children.push(await compared(storage, child, threads));
  return {
    run_id: run.id,
    run_type: run.run_type,
    status: run.status,
    agent_id: run.agent_id,
    subagent_name: inlineSubagentName(run) ?? null,
    model_spec: run.model_spec,
    forked_from: run.forked_from,
    input_preview: previewOf(run.input.message),
    duration_ms: durationOf(node),
    own: usageOf(node.totals.own),
    subtree: usageOf(node.totals.subtree),
    steps,
    tool_calls: {
      total: calls.length,
      errors: calls.filter((call) => call.is_error === true).length,
      by_name: byName,
    },
    output: run.output,
    error: run.error,
    children,
  };
}

/**
 * `GET /api/agent/runs/{a}/compare/{b}` (docs/effects-and-forks.md#compare): each run with the runs below it,
 * side by side, and a diff of their final outputs. Each run is read as the run tree route reads it, so a run
 * the actor may not see is `run_not_found` whichever side it is on.
 */
export async function compareRuns(
  deps: { storage: Storage; views: RunViews; prices?: PriceTable | undefined },
  actor: Actor,
  leftId: string,
  rightId: string,
): Promise<RunComparison> {
  const side = async (runId: string): Promise<RunTreeNode> => {
    const tree = await buildRunTree(deps.storage, deps.views, actor, runId, deps.prices);
    // The tree is the whole root tree; the side is the run asked about, with what it started.
    return findNode(tree, runId) ?? tree;
  };
  const [left, right] = [await side(leftId), await side(rightId)];
  const threads = new Map<string, ThreadMessage[]>();
  const a = await compared(deps.storage, left, threads);
  const b = await compared(deps.storage, right, threads);
  return { a, b, output_diff: diffText(a.output ?? '', b.output ?? '') };
}
