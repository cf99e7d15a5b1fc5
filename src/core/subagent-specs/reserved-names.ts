import { ALWAYS_DISABLED_FOR_SUBAGENTS } from '../subagents/subagent-tool-policy.js';

/**
 * L1 reserved names (docs/inline-subagents.md): never a subagent's name, never one of its tools. A fixed list on purpose —
 * deriving it from the tool registry would silently stop guarding a name whose tool is not built yet.
 */
export const RESERVED_NAMES = [
  'delegate',
  'Delegate',
  'Task',
  'task',
  'plan_write',
  'suggest_plan_mode',
  'suggest_build_mode',
] as const;

const reservedNames: ReadonlySet<string> = new Set(RESERVED_NAMES);
const reservedTools: ReadonlySet<string> = new Set([...RESERVED_NAMES, ...ALWAYS_DISABLED_FOR_SUBAGENTS]);

export function isReservedName(name: string): boolean {
  return reservedNames.has(name);
}

/**
 * A tool no subagent may hold in any approval mode: a reserved name, or one the subagent policy always
 * disables (the task and lifecycle tools, `delegate`, the tools that talk to the user).
 */
export function isReservedTool(name: string): boolean {
  return reservedTools.has(name);
}
