import { TroupeError } from '../core/errors.js';
import type { Storage } from '../core/ports/storage.js';
import type { Run } from '../core/records/run.js';
import { isAdmin, type Actor } from '../core/records/user.js';

/** One node of a run tree: the run and the runs it created (subagents, delegations), oldest first. */
export interface RunTreeNode {
  run: Run;
  children: RunTreeNode[];
}

function visible(actor: Actor, run: Run | undefined): run is Run {
  return run !== undefined && (run.user_id === actor.id || isAdmin(actor));
}

/**
 * The whole tree of the root run that `runId` belongs to, whatever node `runId` is. The tree is read in one
 * query (`listByRoot`) and nested by `created_by_run_id`; a run whose creator is not in the tree (should not
 * happen) hangs under the root rather than disappearing. Scoped like the other run routes: a run the actor
 * cannot see is `run_not_found`.
 */
export async function buildRunTree(storage: Storage, actor: Actor, runId: string): Promise<RunTreeNode> {
  const run = await storage.runs.get(runId);
  if (!visible(actor, run)) throw new TroupeError('run_not_found', `Run ${runId} not found`);
  const rootId = run.root_run_id || run.id;
  const members = await storage.runs.listByRoot(rootId);
  const root = members.find((member) => member.id === rootId) ?? (await storage.runs.get(rootId)) ?? run;
  if (!visible(actor, root)) throw new TroupeError('run_not_found', `Run ${runId} not found`);

  const nodes = new Map<string, RunTreeNode>();
  const rootNode: RunTreeNode = { run: root, children: [] };
  nodes.set(root.id, rootNode);
  for (const member of members) {
    if (!nodes.has(member.id)) nodes.set(member.id, { run: member, children: [] });
  }
  // A foreign run inside a tree (never expected: children run as the same user) is left out for non-admins.
  for (const member of members) {
    if (member.id === root.id || !visible(actor, member)) continue;
    const node = nodes.get(member.id);
    if (node === undefined) continue;
    const parentId = member.created_by_run_id;
    const parent =
      (parentId !== null && parentId !== member.id ? nodes.get(parentId) : undefined) ?? rootNode;
    parent.children.push(node);
  }
  const byCreation = (left: RunTreeNode, right: RunTreeNode): number =>
    left.run.created_at.localeCompare(right.run.created_at) || left.run.id.localeCompare(right.run.id);
  for (const node of nodes.values()) node.children.sort(byCreation);
  return rootNode;
}
