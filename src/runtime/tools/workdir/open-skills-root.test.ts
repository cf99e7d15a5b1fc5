import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { readlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkdirDirectory } from './open-workdir-directory.js';
import { openSkillsRoot } from './open-skills-root.js';

let root: string;
let workdir: string;
let skills: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'troupe-skills-root-')));
  workdir = path.join(root, 'workdir');
  skills = path.join(workdir, '.skills');
  mkdirSync(workdir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Where the descriptor the sandbox would mount really points, read back from the kernel; or none. */
async function openedPath(create = true): Promise<string | undefined> {
  const directory = await openWorkdirDirectory(workdir, '.');
  const opened = await openSkillsRoot(directory, create).finally(() => directory.close());
  if (opened === undefined) return undefined;
  try {
    return await readlink(`/proc/self/fd/${opened.handle.fd}`);
  } finally {
    await opened.close();
  }
}

describe('openSkillsRoot', () => {
  it("opens the workdir's real .skills directory, contents untouched", async () => {
    mkdirSync(path.join(skills, 'tool'), { recursive: true });
    writeFileSync(path.join(skills, 'tool/SKILL.md'), 'skill');
    expect(await openedPath()).toBe(skills);
    expect(readFileSync(path.join(skills, 'tool/SKILL.md'), 'utf8')).toBe('skill');
  });

  it("creates a missing .skills as an empty directory of the server's, or only says there is none", async () => {
    expect(await openedPath(false)).toBeUndefined();
    expect(await openedPath()).toBe(skills);
    expect(lstatSync(skills).isDirectory()).toBe(true);
    expect(statSync(skills).uid).toBe(process.getuid?.());
    expect(readdirSync(skills)).toEqual([]);
  });

  it('never follows a .skills symlink: the link is replaced, its target (outside or inside) is left alone', async () => {
    const outside = path.join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    symlinkSync(outside, skills);
    expect(await openedPath()).toBe(skills);
    expect(lstatSync(skills).isDirectory()).toBe(true);
    expect(readdirSync(skills)).toEqual([]);
    expect(readdirSync(outside)).toEqual(['secret.txt']);

    rmSync(skills, { recursive: true });
    mkdirSync(path.join(workdir, 'notes'));
    writeFileSync(path.join(workdir, 'notes/keep.txt'), 'keep');
    symlinkSync('notes', skills);
    expect(await openedPath(false)).toBeUndefined();
    expect(readdirSync(path.join(workdir, 'notes'))).toEqual(['keep.txt']);
  });

  it('replaces a file or a dangling link in the way', async () => {
    writeFileSync(skills, 'not a directory');
    expect(await openedPath()).toBe(skills);
    rmSync(skills, { recursive: true });
    symlinkSync(path.join(root, 'nowhere'), skills);
    expect(await openedPath()).toBe(skills);
    expect(lstatSync(skills).isDirectory()).toBe(true);
  });
});
