import { describe, expect, it } from 'vitest';
import { normaliseBuildReport, parseSpecsText } from './build-report.ts';

describe('normaliseBuildReport', () => {
  it('reads reason code and offending value from the likely shapes', () => {
    const entries = [
      { spec: 'bad name', reason: 'invalid_name', value: 'bad name' },
      { spec_index: 1, code: 'unresolved_tool', tool: 'no_such_tool', message: 'not in the parent tool set' },
    ];
    for (const body of [
      { report: { warnings: entries } },
      { warnings: entries },
      entries,
      { build_report: { dropped: entries } },
    ]) {
      expect(normaliseBuildReport(body).warnings).toEqual([
        { reason: 'invalid_name', value: 'bad name', spec: 'bad name', message: null },
        {
          reason: 'unresolved_tool',
          value: 'no_such_tool',
          spec: '1',
          message: 'not in the parent tool set',
        },
      ]);
    }
  });

  it('reads the server shape: report entries with code, spec_index/spec_name, value, message; resolved subagents', () => {
    const body = {
      report: [
        {
          code: 'invalid_name',
          spec_index: 0,
          spec_name: 'bad name',
          value: 'bad name',
          message: 'name has whitespace',
        },
        {
          code: 'tool_unresolved',
          spec_index: 1,
          value: 'no_such_tool',
          message: 'not in the parent tool set',
        },
      ],
      dropped: true,
      subagents: [{ name: 'helper', tools: ['read_file'] }],
      parent_tools: ['read_file'],
    };
    expect(normaliseBuildReport(body)).toEqual({
      warnings: [
        { reason: 'invalid_name', value: 'bad name', spec: 'bad name', message: 'name has whitespace' },
        {
          reason: 'tool_unresolved',
          value: 'no_such_tool',
          spec: '1',
          message: 'not in the parent tool set',
        },
      ],
      resolved: ['helper'],
    });
  });

  it('lists resolved subagents when given, and copes with nothing', () => {
    expect(normaliseBuildReport({ report: { warnings: [], resolved: [{ name: 'helper' }] } })).toEqual({
      warnings: [],
      resolved: ['helper'],
    });
    expect(normaliseBuildReport(null)).toEqual({ warnings: [], resolved: null });
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
