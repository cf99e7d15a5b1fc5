import { describe, expect, it } from 'vitest';
import {
  countsLine,
  entryEffect,
  normaliseBuildReport,
  parseSpecsText,
  reportCounts,
  specLabel,
} from './build-report.ts';

describe('normaliseBuildReport', () => {
  it('reads the server shape: entries with code, spec_index/spec_name, value, message; the subagents that run', () => {
    const body = {
      report: [
        {
          code: 'invalid_name',
          spec_index: 0,
          spec_name: 'bad name',
          value: 'bad name',
          message: 'has whitespace',
        },
        {
          code: 'unknown_tool',
          spec_index: 2,
          spec_name: 'helper',
          value: 'no_such_tool',
          message: 'not a parent tool',
        },
        {
          code: 'replaces_dropped',
          spec_index: 3,
          spec_name: 'helper',
          value: 'helper',
          message: 'runs only because…',
        },
        { code: 'mcp_unreachable', spec_index: null, value: 'docs', message: 'no answer' },
      ],
      dropped: true,
      subagents: [
        { name: 'general-purpose', tools: ['read_file'], model: 'm', source: 'builtin', spec_index: null },
        {
          name: 'helper',
          tools: ['read_file', 'ls'],
          model: 'm',
          source: 'inline',
          spec_index: 3,
          replaces_dropped_spec_index: 2,
        },
      ],
      parent_tools: ['read_file', 'ls'],
    };
    const report = normaliseBuildReport(body);
    expect(report.warnings.map((warning) => [warning.reason, warning.spec, warning.dropped])).toEqual([
      ['invalid_name', '#1 bad name', true],
      ['unknown_tool', '#3 helper', true],
      ['replaces_dropped', '#4 helper', false],
      ['mcp_unreachable', null, false],
    ]);
    expect(report.warnings[1]).toMatchObject({
      value: 'no_such_tool',
      specIndex: 2,
      specName: 'helper',
      message: 'not a parent tool',
    });
    expect(report.resolved).toEqual(['general-purpose', 'helper']);
    expect(report.subagents?.[1]).toEqual({
      name: 'helper',
      tools: ['read_file', 'ls'],
      model: 'm',
      source: 'inline',
      spec_index: 3,
      replaces_dropped_spec_index: 2,
    });
  });

  it('reads the bare entry list of a create/update response, and copes with nothing', () => {
    expect(
      normaliseBuildReport([{ code: 'no_tools', spec_index: 1, value: 'x', message: 'm' }]).warnings[0]?.spec,
    ).toBe('#2');
    expect(normaliseBuildReport(null)).toEqual({ warnings: [], resolved: null, subagents: null });
  });

  it('names a spec by its 1-based number (like the editor lines) then name', () => {
    expect(specLabel(2, 'helper')).toBe('#3 helper');
    expect(specLabel(0, null)).toBe('#1');
    expect(specLabel(null, 'x')).toBe('x');
  });

  it('counts dropped specs, values removed from specs that still run, and warnings apart', () => {
    const { warnings } = normaliseBuildReport([
      { code: 'no_tools', spec_index: 0, spec_name: 'helper', value: '[]', message: '' },
      { code: 'invalid_name', spec_index: 1, value: 'bad name', message: '' },
      { code: 'unknown_tool', spec_index: 3, spec_name: 'scout', value: 'nope', message: '' },
      { code: 'reserved_tool', spec_index: 3, spec_name: 'scout', value: 'task', message: '' },
      // Two reasons for one spec, one of them a removed value: the spec counts once.
      { code: 'unknown_tool', spec_index: 4, spec_name: 'ghost', value: 'nothing', message: '' },
      { code: 'no_tools', spec_index: 4, spec_name: 'ghost', value: '[]', message: '' },
      { code: 'replaces_dropped', spec_index: 2, spec_name: 'helper', value: 'helper', message: '' },
    ]);
    const counts = reportCounts(warnings);
    expect(counts).toEqual({ specsDropped: 3, valuesRemoved: 2, valuesOfDroppedSpecs: 1, warnings: 1 });
    expect(countsLine(counts)).toBe('3 specs dropped, 2 values removed (their specs still run), 1 warning');
    expect(warnings.map((warning) => entryEffect(warning, warnings))).toEqual([
      'spec dropped',
      'spec dropped',
      'removed; the spec still runs',
      'removed; the spec still runs',
      'removed (the spec is dropped anyway)',
      'spec dropped',
      'warning',
    ]);
    expect(countsLine(reportCounts(warnings.slice(2, 3)))).toBe('1 value removed (its spec still runs)');
  });
});

describe('parseSpecsText', () => {
  it('accepts an empty box or a JSON array, and explains anything else', () => {
    expect(parseSpecsText('  ')).toEqual({ specs: undefined, error: null });
    expect(parseSpecsText('[{"name":"a"}]').specs).toEqual([{ name: 'a' }]);
    expect(parseSpecsText('{"name":"a"}').error).toContain('JSON array');
    expect(parseSpecsText('[{').error).toMatch(/^Invalid JSON/);
  });
});
