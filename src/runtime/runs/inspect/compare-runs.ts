import type { PriceTable } from '../../../core/budgets/price-table.js';
import type { Storage } from '../../../core/ports/storage.js';
import type {
  ComparedRun,
  ComparedStep,
  ComparedUsage,
  RunComparison,
} from '../../../core/records/run-comparison.js';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import type { RunView } from '../../../core/records/run.js';
import type { Actor } from '../../../core/records/user.js';
import { diffText } from '../../../core/runs/text-diff.js';
import { inlineSubagentName } from '../../../core/subagents/inline-subagent-agent.js';
import { previewOf } from './list-runs.js';
import { buildRunTree, type RunTreeNode, type TreeUsage } from './run-tree.js';
import type { RunViews } from './run-views.js';

const STEP_TEXT_CHARS = 500;

function usageOf(usage: TreeUsage): ComparedUsage {
  const { input_tokens, output_tokens, total_tokens, model_calls, cost_usd } = usage;
  return { input_tokens, output_tokens, total_tokens, model_calls, cost_usd };
}

function textOf(message: ThreadMessage['message']): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/**
 * The run's model turns with their tool calls, read from its thread (a result is found by its call id). A fork
 * that re-runs its source holds the source's steps up to its fork point as its own, written when the fork was
 * created, before the run started: they are marked copied.
 */
function stepsOf(run: RunView, thread: readonly ThreadMessage[]): ComparedStep[] {
  const own = thread.filter((entry) => entry.run_id === run.id);
  const copied = (entry: ThreadMessage) =>
    run.forked_from !== null && (run.started_at === null || entry.created_at < run.started_at);
  const outcome = new Map<string, boolean>();
  for (const entry of own) {
    if (entry.message.role !== 'tool') continue;
    for (const part of entry.message.content)
      if (part.type === 'tool-result') outcome.set(part.toolCallId, part.output.type.startsWith('error'));
  }
  return own
    .filter((entry) => entry.message.role === 'assistant' && entry.step >= 1)
    .map((entry) => {
      const { content } = entry.message;
      const calls = typeof content === 'string' ? [] : content.filter((part) => part.type === 'tool-call');
      return {
        step: entry.step,
        text: textOf(entry.message).slice(0, STEP_TEXT_CHARS),
        tool_calls: calls.map((call) => ({
          name: call.toolName,
          is_error: outcome.get(call.toolCallId) ?? null,
        })),
        input_tokens: entry.usage?.input_tokens ?? null,
        output_tokens: entry.usage?.output_tokens ?? null,
        copied: copied(entry),
      };
    });
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
  const steps = stepsOf(run, thread);
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
