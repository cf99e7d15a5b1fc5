/** Thrown by a tool call that waits for a human decision; the loop parks the run as `input_required`. */
export class ApprovalPendingError extends Error {
  readonly toolCallId: string;

  constructor(toolCallId: string) {
    super(`tool call ${toolCallId} is waiting for approval`);
    this.name = 'ApprovalPendingError';
    this.toolCallId = toolCallId;
  }
}
