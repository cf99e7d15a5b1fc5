import {
  buildSubagentSpecs,
  type BuildSubagentSpecsInput,
} from '../../src/core/subagent-specs/build-subagent-specs.js';
import type { BuildReportEntry } from '../../src/core/subagent-specs/build-report-entry.js';

export const PARENT_TOOLS = [
  'read_file',
  'write_file',
  'ls',
  'grep',
  'mcp__docs__search',
  'mcp__docs__fetch',
  'mcp__git__log',
];

export function spec(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'scanner',
    description: 'Scans files',
    system_prompt: 'You scan.',
    tools: ['read_file'],
    ...overrides,
  };
}

/** Builds the specs against a fixed parent: its tools are PARENT_TOOLS, its model scripted:parent. */
export function buildParentSpecs(specs: unknown[], extra: Partial<BuildSubagentSpecsInput> = {}) {
  return buildSubagentSpecs({
    specs,
    parentTools: PARENT_TOOLS,
    parentModel: 'scripted:parent',
    builtins: [],
    ...extra,
  });
}

export const codes = (report: BuildReportEntry[]) => report.map((entry) => entry.code);
export const inline = (result: ReturnType<typeof buildParentSpecs>) =>
  result.subagents.filter((subagent) => subagent.source === 'inline');
