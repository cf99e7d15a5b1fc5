import { DELEGATION_TEXTS } from '../delegation/delegation-texts.js';
import { isActiveStatus, type Run } from '../records/run.js';
import { SUBAGENT_TEXTS } from '../subagents/subagent-texts.js';
import type { ChildRunKind } from './lineage.js';

const PARENT_TEXTS = {
  subagent: {
    missing: SUBAGENT_TEXTS.parentMissing,
    isSubagent: SUBAGENT_TEXTS.subagentCannotStart,
    notActive: SUBAGENT_TEXTS.creatorNotRunning,
  },
  // The delegating run is the caller's own: anyone else's is as unknown as a missing expert.
  delegation: {
    missing: DELEGATION_TEXTS.notFound,
    isSubagent: DELEGATION_TEXTS.subagentCannotDelegate,
    notActive: DELEGATION_TEXTS.parentNotActive,
  },
  grader: {
    missing: 'The graded run has no parent run',
    isSubagent: SUBAGENT_TEXTS.subagentCannotStart,
    notActive: 'The parent run has ended; its child cannot be graded',
  },
} as const satisfies Record<ChildRunKind, Record<'missing' | 'isSubagent' | 'notActive', string>>;

/** Subagents never start runs (docs/subagents.md, docs/delegation.md): a subagent run has no children, ever. */
export function mayStartChildren(run: Pick<Run, 'run_type'>): boolean {
  return run.run_type !== 'subagent';
}

/** Said to a start refused because its tree is being cancelled. */
export const TREE_STOPPING = 'The run is being cancelled: no new child run starts in its tree';

/** What a start knows of the stop guarantee (docs/budgets.md) besides the creator's own status. */
export interface StartStop {
  /** A cancel is committed on a run above the creator. */
  stoppedAbove: boolean;
  /**
   * The start is a tool call's execution, which the run gate leaves to the start's transaction
   * (`TroupeTool.adoptsCheckpoint`): the creator must then be `running`, as the gate would require, so an
   * attempt that lost its run starts nothing, whatever the kind.
   */
  byToolCall: boolean;
}

/**
 * Who may start a child: a run of the same user that is not a subagent (subagents never start runs: docs/subagents.md
 * and §6) and is still working. A subagent's creator must be `running` (docs/subagents.md); a delegation may also come
 * from a run waiting for a human (through `POST /api/delegate`). Once a cancel is committed on the creator or
 * above it, no child starts (docs/budgets.md), whoever asks.
 */
export function parentRefusal(
  kind: ChildRunKind,
  parent: Pick<Run, 'user_id' | 'run_type' | 'status'> | undefined,
  userId: string,
  stop: StartStop = { stoppedAbove: false, byToolCall: false },
): string | undefined {
  const texts = PARENT_TEXTS[kind];
  if (parent?.user_id !== userId) return texts.missing;
  if (!mayStartChildren(parent)) return texts.isSubagent;
  if (stop.stoppedAbove || parent.status === 'cancel_requested') return TREE_STOPPING;
  const working =
    kind === 'subagent' || stop.byToolCall ? parent.status === 'running' : isActiveStatus(parent.status);
  return working ? undefined : texts.notActive;
}
