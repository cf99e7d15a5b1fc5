import { describe, expect, it } from 'vitest';
import { matchesToolPattern, selectByPatterns } from './tool-patterns.js';

describe('tool patterns', () => {
  it('matches exact names, prefixes and the wildcard', () => {
    expect(matchesToolPattern('read_file', 'read_file')).toBe(true);
    expect(matchesToolPattern('read_file', 'read_files')).toBe(false);
    expect(matchesToolPattern('mcp__gh__*', 'mcp__gh__issues')).toBe(true);
    expect(matchesToolPattern('mcp__gh__*', 'mcp__gl__issues')).toBe(false);
    expect(matchesToolPattern('*', 'anything')).toBe(true);
  });

  it('selects in catalogue order, everything when unset, nothing for an empty list', () => {
    const catalogue = [{ name: 'ls' }, { name: 'read_file' }, { name: 'write_file' }];
    expect(selectByPatterns(catalogue, ['write_file', 'ls']).map((tool) => tool.name)).toEqual([
      'ls',
      'write_file',
    ]);
    expect(selectByPatterns(catalogue, undefined)).toHaveLength(3);
    expect(selectByPatterns(catalogue, [])).toEqual([]);
  });
});
