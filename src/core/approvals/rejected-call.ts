import type { ToolCallResult } from '../ports/agent-middleware.js';

/**
 * The result a call the user rejected gets: the model reads the text, with the user's comment as the reason;
 * clients and the console read the `approval_rejected` refusal (docs/runs.md#events), never the text.
 */
export function rejectedCall(
  toolName: string,
  comment: string | null,
): Required<Omit<ToolCallResult, 'outcome'>> {
  const reason = `The user rejected this ${toolName} call${comment ? `: ${comment}` : ''}`;
  return {
    output: `${reason}. Do not retry it unchanged; ask or take another way.`,
    isError: true,
    refusal: { code: 'approval_rejected', reason, tool: toolName, comment },
  };
}
