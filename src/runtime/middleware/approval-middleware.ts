import { rejectedCall } from '../../core/approvals/rejected-call.js';
import type { Storage } from '../../core/ports/storage.js';
import type { AgentMiddleware } from '../../core/ports/agent-middleware.js';
import { ApprovalPendingError } from '../../core/approvals/approval-pending-error.js';

/**
 * Human-in-the-loop for sensitive tools of a main agent in `default` approval mode: the first time a call
 * is seen it is recorded as pending (with an `approval_required` event) and the run waits; once decided,
 * the resumed run executes it (approved) or tells the model it was rejected, with the user's comment. A
 * call approved "for this run" lets the tool's later calls of the same run through; it changes neither the
 * run's `tool_approval_mode` nor anything its children inherit.
 */
export function createApprovalMiddleware(storage: Storage): AgentMiddleware {
  return {
    name: 'approval',
    async wrapToolCall(request, next) {
      // `sensitive` is a property of the tool itself (one source: the tool's definition), never its name.
      if (request.tool?.sensitive !== true || request.run.tool_approval_mode === 'always_trust')
        return next(request);
      const approval = await storage.approvals.get(request.run.id, request.toolCallId);
      if (approval?.status === 'approved') return next(request);
      if (approval?.status === 'rejected') return rejectedCall(request.toolName, approval.comment);
      // Approved for the rest of this run: later calls of the tool go through without asking again.
      if (!approval && (await storage.approvals.runWideApproval(request.run.id, request.toolName)))
        return next(request);
      if (!approval) {
        await storage.approvals.request({
          run_id: request.run.id,
          tool_call_id: request.toolCallId,
          tool_name: request.toolName,
          args: request.input ?? null,
        });
        await request.context.emit('approval_required', {
          name: request.toolName,
          args: request.input ?? null,
        });
      }
      throw new ApprovalPendingError(request.toolCallId);
    },
  };
}
