import type { ToolApprovalMode } from '../records/agent.js';

/** Tools a subagent never gets: they talk to the user, install things, or spawn further agents. */
export const ALWAYS_DISABLED_FOR_SUBAGENTS = [
  'present_artifacts',
  'ask_user_question',
  'install_skill',
  'task',
  'subagent_start',
  'subagent_status',
  'subagent_await',
  'subagent_cancel',
  'subagent_steer',
  'delegate',
] as const;

/**
 * The catalogue tools flagged sensitive (they write or execute), by name: for texts and the spec builder,
 * which work on names. `sensitive-tools.test.ts` ties the list to the tools' own flags.
 */
export const SENSITIVE_TOOLS = ['write_file', 'edit_file', 'execute'] as const;

/**
 * Whether a subagent run may not use this tool: never the ones that talk to the user, install things or
 * spawn agents; a sensitive one (the tool's own flag) only in `always_trust`, since no human is in the loop.
 */
export function isDisabledForSubagents(
  tool: { name: string; sensitive?: boolean },
  mode: ToolApprovalMode,
): boolean {
  return (
    (ALWAYS_DISABLED_FOR_SUBAGENTS as readonly string[]).includes(tool.name) ||
    (mode !== 'always_trust' && tool.sensitive === true)
  );
}
