import { describe, expect, it } from 'vitest';
import { lineOfOffset, specRanges, warningLine } from './spec-lines.ts';

const TEXT = JSON.stringify(
  [
    { name: 'bad name', description: 'd', system_prompt: 'x' },
    {
      name: 'helper',
      description: 'has, commas ] and "quotes" {',
      system_prompt: 'y',
      tools: ['read_file', 'no_such_tool'],
    },
    { name: 'helper', description: 'again', system_prompt: 'z', tools: [] },
  ],
  null,
  2,
);

describe('spec lines', () => {
  it('finds each top-level element, whatever its strings contain', () => {
    const ranges = specRanges(TEXT);
    expect(ranges).toHaveLength(3);
    expect(JSON.parse(TEXT.slice(ranges[1]?.start, ranges[1]?.end))).toMatchObject({ name: 'helper' });
    expect(specRanges('[1, "a,b", [2, 3]]').map((range) => range.index)).toEqual([0, 1, 2]);
    expect(specRanges('not json')).toEqual([]);
  });

  it('points a warning at its offending value, the tools key, or the spec start', () => {
    const lines = TEXT.split('\n');
    const at = (line: number | null) => (line === null ? null : lines[line - 1]?.trim());
    expect(at(warningLine(TEXT, { specIndex: 1, reason: 'unknown_tool', value: 'no_such_tool' }))).toBe(
      '"no_such_tool"',
    );
    expect(at(warningLine(TEXT, { specIndex: 0, reason: 'invalid_name', value: 'bad name' }))).toBe(
      '"name": "bad name",',
    );
    expect(at(warningLine(TEXT, { specIndex: 2, reason: 'no_tools', value: 'helper' }))).toBe('"tools": []');
    expect(at(warningLine(TEXT, { specIndex: 2, reason: 'missing_field', value: 'undefined' }))).toBe('{');
    expect(warningLine(TEXT, { specIndex: null, reason: 'mcp_unreachable', value: 'docs' })).toBeNull();
    expect(warningLine(TEXT, { specIndex: 9, reason: 'x', value: '' })).toBeNull();
    expect(lineOfOffset('a\nb\nc', 4)).toBe(3);
  });
});
