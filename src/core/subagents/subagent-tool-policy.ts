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

/** Tools that write or execute; a subagent has no human in the loop, so it gets them only in `always_trust`. */
export const SENSITIVE_TOOLS = ['write_file', 'edit_file', 'execute'] as const;

export function isSensitiveTool(name: string): boolean {
  return (SENSITIVE_TOOLS as readonly string[]).includes(name);
}

export function disabledToolsForSubagents(mode: ToolApprovalMode): Set<string> {
  const disabled = new Set<string>(ALWAYS_DISABLED_FOR_SUBAGENTS);
  if (mode !== 'always_trust') for (const name of SENSITIVE_TOOLS) disabled.add(name);
  return disabled;
}
