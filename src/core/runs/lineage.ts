import type { Agent } from '../records/agent.js';
import type { Run } from '../records/run.js';

/**
 * The kinds of run another run starts: a subagent (docs/subagents.md), a delegated expert (docs/delegation.md) or
 * the grader of a child's result (docs/verified-delegation.md).
 */
export type ChildRunKind = 'subagent' | 'delegation' | 'grader';

/** Where a run sits in its execution tree; every run row carries these, copied from its creator. */
export type RunLineage = Pick<
  Run,
  'created_by_run_id' | 'root_run_id' | 'depth' | 'runtime_scope_id' | 'tool_approval_mode'
>;

/**
 * A run's hops from its root, counted by kind: each kind has its own depth limit. An expert reached through
 * `delegate` is a main agent in its own run, so the delegation hops above it do not count against its own
 * subagents.
 */
export interface Hops {
  /** Hops since the nearest run that is not a subagent. */
  subagent: number;
  /** Delegation hops in the ancestry (a delegation started without a parent is a root, not a hop). */
  delegation: number;
}

export type LineageParent = Pick<
  Run,
  'id' | 'root_run_id' | 'depth' | 'runtime_scope_id' | 'tool_approval_mode'
>;

/**
 * The lineage of a new run. A child shares its creator's tree, runtime scope and approval mode (the creator's
 * decision, whatever the child agent says) one level deeper; a root (chat, top-level delegation) starts a tree
 * of its own, scoped to its thread, with its agent's approval mode.
 */
export function lineageFor(
  parent: LineageParent | undefined,
  own: { runId: string; threadId: string; agent: Pick<Agent, 'config'> },
): RunLineage {
  if (!parent) {
    return {
      created_by_run_id: null,
      root_run_id: own.runId,
      depth: 0,
      runtime_scope_id: own.threadId,
      tool_approval_mode: own.agent.config.tool_approval_mode ?? 'default',
    };
  }
  return {
    created_by_run_id: parent.id,
    root_run_id: parent.root_run_id,
    depth: parent.depth + 1,
    runtime_scope_id: parent.runtime_scope_id,
    tool_approval_mode: parent.tool_approval_mode,
  };
}

/**
 * A run's hops, from its own row: `depth` counts every hop, and a subagent run is exactly one subagent hop
 * because a subagent never starts runs (docs/subagents.md, docs/delegation.md: refused for both kinds), so no subagent has a subagent
 * above it. Every other hop is a delegation.
 */
export function hopsOf(run: Pick<Run, 'run_type' | 'depth'>): Hops {
  const subagent = run.run_type === 'subagent' ? 1 : 0;
  return { subagent, delegation: run.depth - subagent };
}

/** The hops a child of `kind` started by `parent` would have; without a parent it is a root. */
export function childHops(parent: Pick<Run, 'run_type' | 'depth'> | undefined, kind: ChildRunKind): Hops {
  if (!parent) return { subagent: 0, delegation: 0 };
  const above = hopsOf(parent);
  return kind === 'subagent'
    ? { subagent: above.subagent + 1, delegation: above.delegation }
    : { subagent: 0, delegation: above.delegation + 1 };
}

/**
 * The one ownership rule between runs (docs/subagents.md#ownership `get_run_for_creator`): a run belongs to the run that
 * created it, for the same user. Anything else is treated as missing by every caller.
 */
export function isOwnedChild(
  child: Pick<Run, 'user_id' | 'created_by_run_id'> | undefined,
  creator: Pick<Run, 'id' | 'user_id'> | undefined,
): boolean {
  if (!child || !creator) return false;
  return child.user_id === creator.user_id && child.created_by_run_id === creator.id;
}
