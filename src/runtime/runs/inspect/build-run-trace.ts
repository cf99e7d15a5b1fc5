import type { Storage } from '../../../core/ports/storage.js';
import type { Actor } from '../../../core/records/user.js';
import { addUsage, ownUsage, zeroUsage } from '../../../core/trace/run-timeline.js';
import type { RunTrace, TraceNode } from '../../../core/trace/run-trace.js';
import { buildRunTree, type RunTreeNode } from './run-tree.js';
import { inlineSubagentName } from '../../../core/subagents/inline-subagent-agent.js';
import { readRunTimeline } from '../../usage/read-run-timeline.js';
import type { RunViews } from './run-views.js';

export type { RunTrace, TraceNode };

/**
 * The trace of the tree `runId` belongs to, scoped like the run tree (a run the actor cannot see is
 * `run_not_found`). Spans come from each run's stored events; a console then follows the live ones from
 * each node's `timeline.last_seq`.
 */
export async function buildRunTrace(
  storage: Storage,
  views: RunViews,
  actor: Actor,
  runId: string,
  now: Date = new Date(),
): Promise<RunTrace> {
  const tree = await buildRunTree(storage, views, actor, runId);
  const ordered: { node: RunTreeNode; parent: string | null }[] = [];
  const walk = (node: RunTreeNode, parent: string | null): void => {
    ordered.push({ node, parent });
    for (const child of node.children) walk(child, node.run.id);
  };
  walk(tree, null);

  const agents = new Map<string, { slug: string; name: string } | undefined>();
  for (const { node } of ordered) {
    if (!agents.has(node.run.agent_id))
      agents.set(node.run.agent_id, await storage.agents.get(node.run.agent_id));
  }
  const nodes: TraceNode[] = [];
  for (const { node, parent } of ordered) {
    const { run } = node;
    const agent = agents.get(run.agent_id);
    const timeline = await readRunTimeline(storage, run.id);
    const own = ownUsage(run.usage, timeline);
    nodes.push({
      run,
      agent: { id: run.agent_id, slug: agent?.slug ?? null, name: agent?.name ?? null },
      display_name: inlineSubagentName(run) ?? agent?.name ?? run.agent_id,
      parent_run_id: parent,
      child_run_ids: node.children.map((child) => child.run.id),
      timeline,
      totals: { own, children: zeroUsage(), subtree: own },
      budget: node.budget,
    });
  }
  // Children come after their parent: summing backwards gives every subtree before its parent needs it.
  const byId = new Map(nodes.map((node) => [node.run.id, node]));
  for (let index = nodes.length - 1; index >= 0; index--) {
    const node = nodes[index];
    if (node === undefined) continue;
    const children = node.child_run_ids
      .map((id) => byId.get(id)?.totals.subtree ?? zeroUsage())
      .reduce(addUsage, zeroUsage());
    node.totals = { own: node.totals.own, children, subtree: addUsage(node.totals.own, children) };
  }
  return { root_run_id: tree.run.id, run_id: runId, generated_at: now.toISOString(), nodes };
}
