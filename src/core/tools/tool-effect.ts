/**
 * What running a tool call twice does (docs/effects-and-forks.md#effect-classes), which decides what a resumed
 * run does with a call that started before a crash and left no result:
 * - `read_only`: nothing outside the call changes; it is run again;
 * - `idempotent`: a second run with the same arguments changes nothing more; it is run again;
 * - `external`: a second run may repeat an effect (a mail sent, a command run); it is not run again, and its
 *   result says the outcome is unknown.
 */
export const TOOL_EFFECTS = ['read_only', 'idempotent', 'external'] as const;
export type ToolEffect = (typeof TOOL_EFFECTS)[number];

/** The hints of an MCP tool's `annotations` that say what a call does (the MCP specification's names). */
export interface ToolEffectHints {
  readOnlyHint?: boolean;
  idempotentHint?: boolean;
  destructiveHint?: boolean;
}

/**
 * An MCP tool's class from its annotations: `readOnlyHint` is read-only, `idempotentHint` (destructive or not:
 * a repeat has no further effect) idempotent, anything else, no annotations included, external.
 */
export function effectFromHints(hints: ToolEffectHints | undefined): ToolEffect {
  if (hints?.readOnlyHint === true) return 'read_only';
  if (hints?.idempotentHint === true) return 'idempotent';
  return 'external';
}
