const PREFIX = 'The user rejected this ';

/**
 * The tool result a rejected call gets: the model reads it, with the user's comment as the reason. The
 * console recognises it (`isRejectionText`) to show a rejection as a decision, not as a failure.
 */
export function rejectionText(toolName: string, comment: string | null): string {
  return `${PREFIX}${toolName} call${comment ? `: ${comment}` : ''}. Do not retry it unchanged; ask or take another way.`;
}

export function isRejectionText(output: unknown): boolean {
  return typeof output === 'string' && output.startsWith(PREFIX);
}

/** The user's reason in a rejection text, or null when none was given. */
export function rejectionComment(output: string): string | null {
  const match =
    /^The user rejected this \S+ call: ([\s\S]*)\. Do not retry it unchanged; ask or take another way\.$/.exec(
      output,
    );
  return match?.[1] ?? null;
}
