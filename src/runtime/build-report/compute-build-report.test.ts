import { describe, expect, it } from 'vitest';
import { computeBuildReport } from './compute-build-report.js';

const CATALOGUE = ['read_file', 'write_file', 'edit_file', 'ls', 'glob', 'grep'];
const SPEC = { name: 'scanner', description: 'Scans', system_prompt: 'Scan.' };

describe('computeBuildReport', () => {
  it("resolves against the catalogue tools the agent's patterns select, plus listed MCP tools", () => {
    const report = computeBuildReport({
      config: { tools: ['read_*', 'ls'], subagent_specs: [{ ...SPEC, tools: ['*'] }] },
      catalogue: CATALOGUE,
      probe: { tool_names: ['mcp__docs__search'], unreachable: [], refused: [] },
      defaultModel: 'scripted:demo',
    });
    expect(report.parent_tools).toEqual(['read_file', 'ls', 'mcp__docs__search']);
    expect(report.subagents.find((subagent) => subagent.name === 'scanner')).toMatchObject({
      tools: ['read_file', 'ls', 'mcp__docs__search'],
      model: 'scripted:demo',
    });
    expect(report).toMatchObject({ report: [], dropped: false });
  });

  it('puts MCP servers first: unreachable ones are warnings whose names stay unverified, refused ones drop their names', () => {
    const report = computeBuildReport({
      config: { subagent_specs: [{ ...SPEC, tools: ['mcp__slow__search', 'mcp__local__run', 'ls'] }] },
      catalogue: CATALOGUE,
      probe: {
        tool_names: [],
        unreachable: [{ server: 'slow', prefix: 'mcp__slow__', message: 'no answer within 3000 ms' }],
        refused: [{ server: 'local', prefix: 'mcp__local__', message: 'admins only' }],
      },
      defaultModel: 'scripted:demo',
    });
    expect(report.report.map((entry) => [entry.code, entry.spec_index, entry.value])).toEqual([
      ['mcp_unreachable', null, 'slow'],
      ['mcp_not_allowed', null, 'local'],
      ['unverified_tool', 0, 'mcp__slow__search'],
      ['unknown_tool', 0, 'mcp__local__run'],
    ]);
    expect(report.dropped).toBe(true);
  });

  it('uses the agent approval mode: sensitive tools only in always_trust', () => {
    const config = {
      tools: ['write_file', 'ls'],
      subagent_specs: [{ ...SPEC, tools: ['write_file', 'ls'] }],
    };
    const strict = computeBuildReport({ config, catalogue: CATALOGUE, defaultModel: 'm:x' });
    expect(strict.report).toEqual([expect.objectContaining({ code: 'disabled_tool', value: 'write_file' })]);
    const trusting = computeBuildReport({
      config: { ...config, tool_approval_mode: 'always_trust' },
      catalogue: CATALOGUE,
      defaultModel: 'm:x',
    });
    expect(trusting.report).toEqual([]);
  });
});
