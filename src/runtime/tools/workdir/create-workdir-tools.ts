import type { AnyTroupeTool } from '../../../core/tools/troupe-tool.js';
import { editFileTool } from './edit-file-tool.js';
import { globTool } from './glob-tool.js';
import { grepTool } from './grep-tool.js';
import { lsTool } from './ls-tool.js';
import { readFileTool } from './read-file-tool.js';
import { writeFileTool } from './write-file-tool.js';

/**
 * Names of the tools that change the workdir or run commands (SPEC: they need approval or `always_trust`, and
 * are withheld from subagents otherwise). `execute` is not a workdir tool but belongs to the same policy.
 */
export const SENSITIVE_TOOL_NAMES = ['write_file', 'edit_file', 'execute'] as const;

export type SensitiveToolName = (typeof SENSITIVE_TOOL_NAMES)[number];

/** The six file tools every run gets over its project workdir (the path comes from each call's context). */
export function createWorkdirTools(): AnyTroupeTool[] {
  return [readFileTool, writeFileTool, editFileTool, lsTool, globTool, grepTool];
}
