import { describe, expect, it } from 'vitest';
import { buildSubagentSpecs, type BuildSubagentSpecsInput } from './build-subagent-specs.js';
import { dropsSpec, isDrop, type BuildReportEntry } from './build-report-entry.js';
import { generalPurposeSubagent, GENERAL_PURPOSE_NAME } from './general-purpose-subagent.js';
import { RESERVED_NAMES } from './reserved-names.js';

const PARENT_TOOLS = [
  'read_file',
  'write_file',
  'ls',
  'grep',
  'mcp__docs__search',
  'mcp__docs__fetch',
  'mcp__git__log',
];

function spec(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'scanner',
    description: 'Scans files',
    system_prompt: 'You scan.',
    tools: ['read_file'],
    ...overrides,
  };
}

function build(specs: unknown[], extra: Partial<BuildSubagentSpecsInput> = {}) {
  return buildSubagentSpecs({
    specs,
    parentTools: PARENT_TOOLS,
    parentModel: 'scripted:parent',
    builtins: [],
    ...extra,
  });
}

const codes = (report: BuildReportEntry[]) => report.map((entry) => entry.code);
const inline = (result: ReturnType<typeof build>) =>
  result.subagents.filter((subagent) => subagent.source === 'inline');

describe('buildSubagentSpecs: a valid spec', () => {
  it('resolves with its tools and model, reporting nothing', () => {
    const result = build([spec({ model: 'openai:gpt-4o-mini' })]);
    expect(result.report).toEqual([]);
    expect(result.subagents).toEqual([
      {
        name: 'scanner',
        description: 'Scans files',
        system_prompt: 'You scan.',
        tools: ['read_file'],
        model: 'openai:gpt-4o-mini',
        source: 'inline',
        spec_index: 0,
      },
    ]);
  });

  it("inherits the parent's model when none is given", () => {
    expect(build([spec()]).subagents[0]?.model).toBe('scripted:parent');
  });

  it('has no tools when tools is absent: the spec is dropped as no_tools, telling to add at least one', () => {
    const { tools: _omitted, ...withoutTools } = spec();
    for (const raw of [withoutTools, spec({ tools: undefined })]) {
      const result = build([raw], { parentTools: [...PARENT_TOOLS, 'task', 'delegate'] });
      expect(result.subagents).toEqual([]);
      expect(result.report).toHaveLength(1);
      expect(result.report[0]).toMatchObject({
        code: 'no_tools',
        spec_index: 0,
        spec_name: 'scanner',
        value: 'scanner',
      });
      expect(result.report[0]?.message).toContain('add at least one tool');
      expect(result.report.every(dropsSpec)).toBe(true);
    }
  });
});

describe('buildSubagentSpecs: spec drop rules', () => {
  it.each([
    ['a string', 'scanner'],
    ['null', null],
    ['an array', [spec()]],
    ['a number', 3],
  ])('drops %s as not_an_object', (_label, value) => {
    const result = build([value]);
    expect(result.subagents).toEqual([]);
    expect(result.report).toEqual([expect.objectContaining({ code: 'not_an_object', spec_index: 0 })]);
  });

  it.each(['name', 'description', 'system_prompt'])(
    'drops a spec whose %s is missing, empty or blank',
    (field) => {
      for (const value of [undefined, '', '   ', null]) {
        const result = build([spec({ [field]: value })]);
        expect(result.subagents).toEqual([]);
        expect(codes(result.report)).toEqual(['missing_field']);
        expect(result.report[0]?.message).toContain(`"${field}"`);
      }
    },
  );

  it.each(['name', 'description', 'system_prompt'])('drops a spec whose %s is not a string', (field) => {
    const result = build([spec({ [field]: 42 })]);
    expect(result.subagents).toEqual([]);
    expect(result.report[0]).toMatchObject({ code: 'invalid_field', value: '42' });
  });

  it('reports every shape problem of one spec at once', () => {
    const result = build([{ name: 'a b', tools: 'read_file' }]);
    expect(codes(result.report).sort()).toEqual([
      'invalid_name',
      'missing_field',
      'missing_field',
      'tools_not_array',
    ]);
    expect(result.report.every((entry) => entry.spec_index === 0 && entry.spec_name === 'a b')).toBe(true);
  });

  it.each(['has space', 'tab\there', 'new\nline', 'quo"te', 'a<b', 'a>b', 'a&b', "it's"])(
    'drops the name %j',
    (name) => {
      const result = build([spec({ name })]);
      expect(result.subagents).toEqual([]);
      expect(result.report).toEqual([expect.objectContaining({ code: 'invalid_name', value: name })]);
    },
  );

  it.each([...RESERVED_NAMES])('drops the reserved name %s', (name) => {
    const result = build([spec({ name })]);
    expect(result.subagents).toEqual([]);
    expect(result.report).toEqual([
      expect.objectContaining({ code: 'reserved_name', value: name, spec_name: name }),
    ]);
  });

  it.each([{ tools: 'read_file' }, { tools: { read_file: true } }, { tools: null }, { tools: 5 }])(
    'drops tools that is present but not an array: $tools',
    ({ tools }) => {
      const result = build([spec({ tools })]);
      expect(result.subagents).toEqual([]);
      expect(codes(result.report)).toEqual(['tools_not_array']);
    },
  );

  it('drops a spec left with zero tools', () => {
    for (const tools of [[], ['nope'], ['task', 'delegate'], ['mcp__absent__*']]) {
      const result = build([spec({ tools })]);
      expect(result.subagents).toEqual([]);
      expect(codes(result.report)).toContain('no_tools');
      expect(result.report.filter(dropsSpec)).toHaveLength(1);
    }
  });

  it('keeps the first of two specs with the same name', () => {
    const result = build([spec({ description: 'first' }), spec({ description: 'second' })]);
    expect(inline(result).map((subagent) => subagent.description)).toEqual(['first']);
    expect(result.report).toEqual([
      expect.objectContaining({ code: 'duplicate_name', spec_index: 1, value: 'scanner' }),
    ]);
  });

  it('lets a later spec take a name whose first holder was dropped, and flags that it did', () => {
    const result = build([spec({ tools: [] }), spec({ description: 'second' })]);
    expect(inline(result).map((subagent) => subagent.description)).toEqual(['second']);
    expect(inline(result)[0]?.replaces_dropped_spec_index).toBe(0);
    expect(codes(result.report)).toEqual(['no_tools', 'replaces_dropped']);
    expect(result.report[1]).toMatchObject({ spec_index: 1, spec_name: 'scanner', value: 'scanner' });
    expect(isDrop(result.report[1] as BuildReportEntry)).toBe(false);
    // Also when the first holder failed validation, and not when nothing of that name was dropped.
    const invalid = build([
      spec({ system_prompt: '' }),
      spec({ name: 'other' }),
      spec({ description: 'third' }),
    ]);
    expect(
      invalid.report.filter((entry) => entry.code === 'replaces_dropped').map((entry) => entry.spec_index),
    ).toEqual([2]);
    expect(inline(build([spec()]))[0]).not.toHaveProperty('replaces_dropped_spec_index');
  });

  it('puts built-ins first: a spec named like one is dropped', () => {
    const builtins = [generalPurposeSubagent({ parentTools: PARENT_TOOLS, parentModel: 'scripted:parent' })];
    const result = build([spec({ name: GENERAL_PURPOSE_NAME })], { builtins });
    expect(result.subagents.map((subagent) => subagent.source)).toEqual(['builtin']);
    expect(result.report[0]?.code).toBe('duplicate_name');
    expect(result.report[0]?.message).toContain('built-in');
  });

  it('lets an inline spec shadow a registered subagent, and says so', () => {
    const result = build([spec({ name: 'helper' })], { registeredSlugs: ['helper', 'other'] });
    expect(inline(result).map((subagent) => subagent.name)).toEqual(['helper']);
    expect(result.report).toEqual([expect.objectContaining({ code: 'shadows_registered', value: 'helper' })]);
    expect(result.report.some(isDrop)).toBe(false);
  });
});

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
