/**
 * Reason codes of the build report (docs/inline-subagents.md). Stable: the CLI, the console and scripts match on them.
 * Spec-level codes drop the whole spec; tool-level codes drop one tool name; the warnings drop nothing.
 */
export const BUILD_REPORT_CODES = [
  // the spec is dropped
  'not_an_object',
  'missing_field',
  'invalid_field',
  'invalid_name',
  'reserved_name',
  'tools_not_array',
  'no_tools',
  'duplicate_name',
  // one value of the spec is dropped
  'invalid_tool_name',
  'reserved_tool',
  'disabled_tool',
  'unknown_tool',
  'invalid_model',
  'invalid_skill',
  'unknown_skill',
  // warnings: nothing is dropped
  'unknown_field',
  'shadows_registered',
  'unverified_tool',
  'mcp_unreachable',
  'mcp_not_allowed',
  'tool_unavailable',
  'execute_network_denied',
  'unknown_knowledge_source',
  'replaces_dropped',
] as const;

export type BuildReportCode = (typeof BUILD_REPORT_CODES)[number];

const WARNING_CODES: ReadonlySet<BuildReportCode> = new Set([
  'unknown_field',
  'shadows_registered',
  'unverified_tool',
  'mcp_unreachable',
  'mcp_not_allowed',
  'tool_unavailable',
  'execute_network_denied',
  'unknown_knowledge_source',
  'replaces_dropped',
]);

const SPEC_DROP_CODES: ReadonlySet<BuildReportCode> = new Set([
  'not_an_object',
  'missing_field',
  'invalid_field',
  'invalid_name',
  'reserved_name',
  'tools_not_array',
  'no_tools',
  'duplicate_name',
]);

export interface BuildReportEntry {
  code: BuildReportCode;
  /** Index in `config.subagent_specs`; null for entries about the agent itself (an MCP server). */
  spec_index: number | null;
  /** The spec's name when it has a string one. */
  spec_name?: string;
  /** The offending value, rendered as short JSON (a tool name, a field value, a server name). */
  value: string;
  message: string;
}

/** Something was dropped: a spec or one of its values. Warnings are not drops. */
export function isDrop(entry: BuildReportEntry): boolean {
  return !WARNING_CODES.has(entry.code);
}

/** The whole spec was dropped by this entry. */
export function dropsSpec(entry: BuildReportEntry): boolean {
  return SPEC_DROP_CODES.has(entry.code);
}

const MAX_VALUE_CHARS = 200;

/** Short JSON of an offending value; a report must stay readable even when a spec is huge or odd. */
export function reportValue(value: unknown): string {
  if (typeof value === 'string') return truncate(value);
  if (value === undefined) return 'undefined';
  if (typeof value === 'bigint' || typeof value === 'symbol') return truncate(value.toString());
  if (typeof value === 'function') return '[function]';
  try {
    return truncate(JSON.stringify(value));
  } catch {
    // Cycles and other unserialisable values still deserve a mention, not a crash.
    return Object.prototype.toString.call(value);
  }
}

function truncate(text: string): string {
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}
