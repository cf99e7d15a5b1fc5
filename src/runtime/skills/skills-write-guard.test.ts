import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUnderSkillsDir, writtenPaths } from './skills-write-guard.js';

let workdir: string;
beforeAll(() => {
  workdir = mkdtempSync(path.join(os.tmpdir(), 'troupe-skills-guard-'));
  mkdirSync(path.join(workdir, '.skills/citations'), { recursive: true });
  writeFileSync(path.join(workdir, '.skills/citations/SKILL.md'), 'x');
  mkdirSync(path.join(workdir, 'notes'));
  symlinkSync(path.join(workdir, '.skills'), path.join(workdir, 'notes/sneaky'));
  symlinkSync(path.join(workdir, '.skills/citations/SKILL.md'), path.join(workdir, 'notes/file-link'));
  symlinkSync('../.skills/citations/new.md', path.join(workdir, 'notes/dangling'));
});
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

describe('isUnderSkillsDir', () => {
  it.each([
    '.skills/citations/SKILL.md',
    './.skills/citations/SKILL.md',
    '.skills',
    '.skills/new-skill/SKILL.md',
    'notes/../.skills/citations/SKILL.md',
    'notes/sneaky/citations/SKILL.md',
    'notes/file-link',
    'notes/dangling',
  ])('is true for %j', async (requested) => {
    expect(await isUnderSkillsDir(workdir, requested)).toBe(true);
  });

  it('is true for absolute paths into .skills', async () => {
    expect(await isUnderSkillsDir(workdir, path.join(workdir, '.skills/citations/SKILL.md'))).toBe(true);
  });

  it.each(['notes/a.md', '.skillset/a.md', 'skills/a.md', 'notes/.skills/a.md', '../elsewhere'])(
    'is false for %j',
    async (requested) => {
      expect(await isUnderSkillsDir(workdir, requested)).toBe(false);
    },
  );
});

describe('writtenPaths', () => {
  it('names the paths of writing tools and of sensitive tools, not of readers or install_skill', () => {
    expect(
      writtenPaths({ toolName: 'write_file', tool: undefined, input: { path: 'a', content: '' } }),
    ).toEqual(['a']);
    expect(writtenPaths({ toolName: 'edit_file', tool: undefined, input: { path: 'b' } })).toEqual(['b']);
    const sensitive = {
      name: 'mcp__fs__write',
      description: '',
      effect: 'external' as const,
      sensitive: true,
      inputSchema: undefined as never,
      execute: () => Promise.resolve(''),
    };
    expect(writtenPaths({ toolName: 'mcp__fs__write', tool: sensitive, input: { file_path: 'c' } })).toEqual([
      'c',
    ]);
    expect(writtenPaths({ toolName: 'read_file', tool: undefined, input: { path: 'a' } })).toEqual([]);
    expect(
      writtenPaths({
        toolName: 'install_skill',
        tool: { ...sensitive, name: 'install_skill' },
        input: { path: '.skills/a' },
      }),
    ).toEqual([]);
  });
});
