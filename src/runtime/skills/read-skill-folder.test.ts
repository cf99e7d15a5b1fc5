import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SKILL_LIMITS } from '../../core/skills/skill-limits.js';
import { readSkillFolder } from './read-skill-folder.js';
import { skillMd } from '../../../test/helpers/skills/skill-archives.js';

let root: string;
let outside: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'troupe-skill-folder-'));
  outside = mkdtempSync(path.join(os.tmpdir(), 'troupe-skill-outside-'));
  writeFileSync(path.join(outside, 'secret.txt'), 'outside secret');
  mkdirSync(path.join(root, 'work/my-skill/ref'), { recursive: true });
  writeFileSync(path.join(root, 'work/my-skill/SKILL.md'), skillMd('my-skill'));
  writeFileSync(path.join(root, 'work/my-skill/ref/notes.md'), 'notes');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const read = (requested: string) => readSkillFolder(root, requested, DEFAULT_SKILL_LIMITS);

describe('readSkillFolder', () => {
  it('reads every file of the folder with paths relative to it', async () => {
    const entries = await read('work/my-skill');
    expect(entries.map((entry) => [entry.path, new TextDecoder().decode(entry.content)])).toEqual([
      ['SKILL.md', skillMd('my-skill')],
      ['ref/notes.md', 'notes'],
    ]);
  });

  it('refuses paths leading outside the root', async () => {
    await expect(read('../')).rejects.toMatchObject({ code: 'path_outside_workdir' });
    await expect(read(outside)).rejects.toMatchObject({ code: 'path_outside_workdir' });
    await expect(read('work/../../x')).rejects.toMatchObject({ code: 'path_outside_workdir' });
  });

  it('refuses a symlink inside the tree, even one pointing inside', async () => {
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'work/my-skill/ref/secret.txt'));
    await expect(read('work/my-skill')).rejects.toMatchObject({ code: 'skill_invalid' });
    await expect(read('work/my-skill')).rejects.toThrow(/symbolic link/);
  });

  it('refuses a folder reached through a symlink', async () => {
    symlinkSync(outside, path.join(root, 'work/linked'));
    writeFileSync(path.join(outside, 'SKILL.md'), skillMd('stolen'));
    await expect(read('work/linked')).rejects.toThrow(/symbolic link/);
    await expect(read('work/linked')).rejects.toMatchObject({ code: 'skill_invalid' });
  });

  it('answers file_not_found for a missing folder and skill_invalid for a file', async () => {
    await expect(read('work/nope')).rejects.toMatchObject({ code: 'file_not_found' });
    await expect(read('work/my-skill/SKILL.md')).rejects.toMatchObject({ code: 'skill_invalid' });
  });

  it('stops at the byte and file limits while reading', async () => {
    writeFileSync(path.join(root, 'work/my-skill/big.bin'), Buffer.alloc(2048));
    await expect(
      readSkillFolder(root, 'work/my-skill', { ...DEFAULT_SKILL_LIMITS, maxTotalBytes: 1024 }),
    ).rejects.toMatchObject({
      code: 'skill_too_large',
    });
    await expect(
      readSkillFolder(root, 'work/my-skill', { ...DEFAULT_SKILL_LIMITS, maxFiles: 2 }),
    ).rejects.toMatchObject({
      code: 'skill_too_large',
    });
  });
});
