import { describe, expect, it } from 'vitest';
import { isDrop } from './build-report-entry.js';
import { generalPurposeSubagent } from './general-purpose-subagent.js';
import { RESERVED_NAMES } from './reserved-names.js';
import {
  buildParentSpecs as build,
  codes,
  PARENT_TOOLS,
  spec,
} from '../../../test/helpers/build-parent-specs.js';

describe('buildSubagentSpecs: the three-pass tool whitelist', () => {
  it('pass 1 drops reserved names and the task, lifecycle and delegate tools, even when the parent has them', () => {
    const tools = [...RESERVED_NAMES, 'subagent_start', 'subagent_await', 'ask_user_question', 'read_file'];
    const result = build([spec({ tools })], { parentTools: [...PARENT_TOOLS, ...tools] });
    expect(result.subagents[0]?.tools).toEqual(['read_file']);
    expect(result.report.filter((entry) => entry.code === 'reserved_tool')).toHaveLength(tools.length - 1);
  });

  it('pass 2 expands * against the parent, and the results pass the reserved check again', () => {
    const parentTools = [...PARENT_TOOLS, 'task', 'delegate', 'Delegate', 'subagent_status', 'plan_write'];
    const result = build([spec({ tools: ['*'] })], { parentTools });
    expect(result.subagents[0]?.tools).toEqual(PARENT_TOOLS);
    expect(result.report).toEqual([]);
  });

  it('pass 2 expands prefix patterns such as mcp__server__*', () => {
    const result = build([spec({ tools: ['mcp__docs__*', 'ls'] })]);
    expect(result.subagents[0]?.tools).toEqual(['mcp__docs__search', 'mcp__docs__fetch', 'ls']);
  });

  it('reports a pattern that matches nothing, or only reserved tools', () => {
    const result = build([spec({ tools: ['mcp__none__*', 'subagent_*', 'read_file'] })], {
      parentTools: [...PARENT_TOOLS, 'subagent_start'],
    });
    expect(result.subagents[0]?.tools).toEqual(['read_file']);
    expect(result.report).toEqual([
      expect.objectContaining({ code: 'unknown_tool', value: 'mcp__none__*' }),
      expect.objectContaining({ code: 'reserved_tool', value: 'subagent_*' }),
    ]);
  });

  it('pass 3 keeps exact names the parent has and drops the rest', () => {
    const result = build([
      spec({ tools: ['read_file', 'execute', 'mcp__docs__search', 'mcp__*__log', 7, ''] }),
    ]);
    expect(result.subagents[0]?.tools).toEqual(['read_file', 'mcp__docs__search']);
    expect(result.report.map((entry) => [entry.code, entry.value])).toEqual([
      ['invalid_tool_name', '7'],
      ['invalid_tool_name', ''],
      ['unknown_tool', 'execute'],
      ['unknown_tool', 'mcp__*__log'],
    ]);
    expect(result.report[3]?.message).toContain('only a trailing * is a pattern');
  });

  it('reports explicitly named disabled tools; patterns skip them silently', () => {
    const result = build(
      [spec({ tools: ['write_file', 'read_file'] }), spec({ name: 'all', tools: ['*'] })],
      {
        disabledTools: ['write_file'],
      },
    );
    expect(result.subagents.map((subagent) => subagent.tools)).toEqual([
      ['read_file'],
      PARENT_TOOLS.filter((tool) => tool !== 'write_file'),
    ]);
    expect(result.report).toEqual([expect.objectContaining({ code: 'disabled_tool', value: 'write_file' })]);
  });

  it('never hands out a tool twice', () => {
    expect(build([spec({ tools: ['read_file', '*', 'read_file'] })]).subagents[0]?.tools).toEqual(
      PARENT_TOOLS,
    );
  });

  it('marks names of an MCP server that could not be listed as unverified, not dropped', () => {
    const result = build([spec({ tools: ['mcp__wiki__search', 'mcp__wiki__*'] })], {
      unverifiedPrefixes: ['mcp__wiki__'],
    });
    expect(codes(result.report)).toEqual(['unverified_tool', 'unverified_tool']);
    expect(result.report.some(isDrop)).toBe(false);
    expect(result.subagents[0]?.tools).toEqual([]);
  });
});

describe('buildSubagentSpecs: warnings', () => {
  it('warns about unknown fields, which would otherwise hide a typo such as "tool"', () => {
    const result = build([spec({ tools: undefined, tool: ['read_file'] })]);
    expect(codes(result.report)).toEqual(['unknown_field', 'no_tools']);
    expect(result.report[0]).toMatchObject({ code: 'unknown_field', value: 'tool' });
    expect(result.subagents).toEqual([]);
  });

  it('drops an unusable model and inherits the parent one', () => {
    const result = build([spec({ model: '' }), spec({ name: 'b', model: 3 })]);
    expect(result.subagents.map((subagent) => subagent.model)).toEqual([
      'scripted:parent',
      'scripted:parent',
    ]);
    expect(codes(result.report)).toEqual(['invalid_model', 'invalid_model']);
  });
});

describe('generalPurposeSubagent', () => {
  it("inherits the parent's tools minus reserved and disabled ones, and the parent's model", () => {
    const gp = generalPurposeSubagent({
      parentTools: [...PARENT_TOOLS, 'task', 'delegate', 'subagent_cancel', 'read_file'],
      parentModel: 'openai:gpt-4o',
      disabledTools: ['write_file'],
    });
    expect(gp).toMatchObject({
      name: 'general-purpose',
      source: 'builtin',
      model: 'openai:gpt-4o',
      spec_index: null,
    });
    expect(gp.tools).toEqual(PARENT_TOOLS.filter((tool) => tool !== 'write_file'));
  });
});
