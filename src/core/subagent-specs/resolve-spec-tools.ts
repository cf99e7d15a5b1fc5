import { matchesToolPattern } from '../tool-patterns.js';
import { reportValue, type BuildReportCode, type BuildReportEntry } from './build-report-entry.js';
import { isReservedTool } from './reserved-names.js';

export interface SpecToolsInput {
  /** The spec's `tools` array, as written. */
  requested: readonly unknown[];
  /** The parent's tool names: the only tools a subagent can ever get. */
  parentTools: readonly string[];
  /** Tools subagents may not hold in this context (e.g. sensitive tools outside `always_trust`). */
  disabledTools: ReadonlySet<string>;
  /** Name prefixes whose tools cannot be listed right now (an unreachable MCP server). */
  unverifiedPrefixes: readonly string[];
  specIndex: number;
  specName: string;
}

export interface SpecToolsResult {
  tools: string[];
  entries: BuildReportEntry[];
  /** Names that could not be checked; they are not granted, but they do not count as dropped either. */
  unverified: number;
}

const isPattern = (name: string) => name.endsWith('*');

/**
 * The three-pass whitelist of docs/inline-subagents.md: (1) reserved names out; (2) `*` and prefix patterns expanded against
 * the PARENT's tools, whose results pass the reserved check again; (3) exact names matched, the rest dropped.
 * Nothing is invented: every returned name is one of `parentTools`.
 */
export function resolveSpecTools(input: SpecToolsInput): SpecToolsResult {
  const { parentTools, disabledTools, specIndex, specName } = input;
  const parent = new Set(parentTools);
  // Grants are collected per requested entry so the result keeps the author's order across the passes.
  const grants = new Map<string, string[]>();
  const entries: BuildReportEntry[] = [];
  let unverified = 0;
  const report = (code: BuildReportCode, value: unknown, message: string) =>
    entries.push({ code, spec_index: specIndex, spec_name: specName, value: reportValue(value), message });
  const grantable = (name: string) => !isReservedTool(name) && !disabledTools.has(name);
  const isUnverified = (name: string) => {
    const prefix = isPattern(name) ? name.slice(0, -1) : name;
    // `mcp__*` reaches into an unreachable `mcp__docs__` as much as `mcp__docs__search` does.
    return input.unverifiedPrefixes.some(
      (hidden) => prefix.startsWith(hidden) || (isPattern(name) && hidden.startsWith(prefix)),
    );
  };
  const unresolved = (name: string, why: string) => {
    if (isUnverified(name)) {
      unverified += 1;
      report(
        'unverified_tool',
        name,
        `Spec "${specName}": "${name}" belongs to an MCP server that could not be listed; it is checked again at run time`,
      );
    } else {
      report('unknown_tool', name, `Spec "${specName}": ${why}`);
    }
  };

  // Pass 1: the reserved check comes first, before a name can match anything.
  const names: string[] = [];
  for (const raw of input.requested) {
    if (typeof raw !== 'string' || raw.trim() === '') {
      report('invalid_tool_name', raw, `Spec "${specName}": tool entries must be non-empty strings`);
    } else if (isReservedTool(raw)) {
      report(
        'reserved_tool',
        raw,
        `Spec "${specName}": "${raw}" is reserved for the main agent and never given to a subagent`,
      );
    } else {
      names.push(raw);
    }
  }
  // Pass 2: patterns, against the parent's set only; reserved and disabled results are filtered silently.
  for (const pattern of names.filter(isPattern)) {
    const matched = parentTools.filter((tool) => matchesToolPattern(pattern, tool));
    const kept = matched.filter(grantable);
    grants.set(pattern, kept);
    if (matched.length === 0) {
      unresolved(pattern, `pattern "${pattern}" matches none of the parent's tools`);
    } else if (kept.length === 0) {
      const code = matched.some(isReservedTool) ? 'reserved_tool' : 'disabled_tool';
      report(
        code,
        pattern,
        `Spec "${specName}": pattern "${pattern}" matches only tools subagents may not hold (${matched.join(', ')})`,
      );
    }
  }
  // Pass 3: exact names; a subagent never gets a tool its parent lacks.
  for (const name of names.filter((candidate) => !isPattern(candidate))) {
    if (!parent.has(name)) {
      const hint = name.includes('*') ? '; only a trailing * is a pattern' : '';
      unresolved(name, `"${name}" is not one of the parent's tools${hint}`);
    } else if (disabledTools.has(name)) {
      report(
        'disabled_tool',
        name,
        `Spec "${specName}": "${name}" is not available to subagents in this approval mode (only with always_trust)`,
      );
    } else {
      grants.set(name, [name]);
    }
  }
  const tools = new Set(names.flatMap((name) => grants.get(name) ?? []));
  return { tools: [...tools], entries, unverified };
}
