import { TroupeError } from '../../../core/errors.js';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Run, ToolApproval } from '../../../core/records/run.js';
import type { Actor } from '../../../core/records/user.js';
import type { ApprovalDecision } from '../run-service-api.js';
import { resumeWhenNothingPending } from './resume-when-nothing-pending.js';

/**
 * Decides a pending approval of the actor's own run. `scope: "run"` approves the tool for the rest of the
 * run: the other calls of that tool waiting in the same run are approved with it, in one transaction, and
 * the approval middleware lets its later calls through. The run resumes once nothing of it is pending.
 */
export async function decideRunApproval(
  storage: Storage,
  queue: RunQueue,
  actor: Actor,
  run: Run,
  toolCallId: string,
  { decision, comment, scope = 'call' }: ApprovalDecision,
): Promise<{ approval: ToolApproval; run: Run }> {
  if (scope === 'run' && decision !== 'approve') {
    throw new TroupeError(
      'validation_failed',
      'Only an approval can cover the rest of the run (scope "run")',
      {
        details: { param: 'scope' },
      },
    );
  }
  const existing = await storage.approvals.get(run.id, toolCallId);
  if (existing?.kind !== 'approval') {
    throw new TroupeError('approval_not_found', `Run ${run.id} has no approval for tool call ${toolCallId}`);
  }
  const approval = await storage.transaction(async (tx) => {
    const status = decision === 'approve' ? 'approved' : 'rejected';
    const decided = await tx.approvals.decide(run.id, toolCallId, status, actor.id, comment ?? null, scope);
    if (!decided || scope !== 'run') return decided;
    const waiting = (await tx.approvals.listForRun(run.id)).filter(
      (entry) =>
        entry.kind === 'approval' && entry.status === 'pending' && entry.tool_name === decided.tool_name,
    );
    for (const entry of waiting)
      await tx.approvals.decide(run.id, entry.tool_call_id, 'approved', actor.id, null);
    return decided;
  });
  if (!approval)
    throw new TroupeError('approval_decided', `Tool call ${toolCallId} was already ${existing.status}`);
  // Every decision is in: hand the parked run back to a worker, which executes or refuses the calls.
  const resumed = await resumeWhenNothingPending(storage, queue, run.id);
  return { approval, run: resumed ?? (await storage.runs.get(run.id)) ?? run };
}
