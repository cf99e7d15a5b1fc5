import { describe, expect, it } from 'vitest';
import { dropsSpec, isDrop, type BuildReportEntry } from './build-report-entry.js';
import { generalPurposeSubagent, GENERAL_PURPOSE_NAME } from './general-purpose-subagent.js';
import { RESERVED_NAMES } from './reserved-names.js';
import {
  buildParentSpecs as build,
  codes,
  inline,
  PARENT_TOOLS,
  spec,
} from '../../../test/helpers/build-parent-specs.js';

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
