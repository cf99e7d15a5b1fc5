import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config.js';
import { createTroupe, listen } from '../create-troupe.js';
import { skillMd, tarGzOf, zipOf } from '../../test/helpers/skills/skill-archives.js';
import { runCli } from './run-cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-skills-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The real CLI entry, in process: same commands and storage as `troupe …`, without spawning tsx each time. */
async function troupe(...args: string[]): Promise<{ code: number | undefined; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi
    .spyOn(console, 'log')
    .mockImplementation((...parts: unknown[]) => void out.push(parts.join(' ')));
  const error = vi
    .spyOn(console, 'error')
    .mockImplementation((...parts: unknown[]) => void err.push(parts.join(' ')));
  try {
    const code = await runCli(args, {
      loadConfig: () => loadConfig({ TROUPE_DATA_DIR: path.join(dir, 'data') }, dir),
      createTroupe,
      listen,
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('troupe skills', { timeout: 60_000 }, () => {
  it('adds a folder and an archive for a user, lists them, and refuses a hostile archive', async () => {
    expect((await troupe('users', 'create', 'carol')).code).toBe(0);
    const folder = path.join(dir, 'my-skill');
    mkdirSync(path.join(folder, 'ref'), { recursive: true });
    writeFileSync(path.join(folder, 'SKILL.md'), skillMd('folder-skill', 'From a folder'));
    writeFileSync(path.join(folder, 'ref/notes.md'), 'notes');
    const added = await troupe('skills', 'add', folder, '--user', 'carol');
    expect(added).toMatchObject({ code: 0, err: '' });
    expect(added.out).toMatch(
      /^Added skill "folder-skill" for carol \(skl_[0-9a-f]{20}, 2 files, private\)\.$/,
    );

    const archive = path.join(dir, 'zipped.tar.gz');
    writeFileSync(
      archive,
      tarGzOf([{ path: 'zipped/SKILL.md', content: skillMd('zipped', 'From an archive') }]),
    );
    expect((await troupe('skills', 'add', archive, '--user', 'carol', '--visibility', 'public')).code).toBe(
      0,
    );
    expect((await troupe('skills', 'add', archive, '--user', 'carol')).err).toContain('skill_name_taken');
    expect((await troupe('skills', 'add', archive, '--user', 'carol', '--replace')).out).toContain(
      'Updated skill "zipped"',
    );

    const listed = await troupe('skills', 'list', '--user', 'carol');
    expect(listed.out.split('\n')).toEqual([
      'folder-skill\tprivate\t2 files\tFrom a folder',
      'zipped\tpublic\t1 files\tFrom an archive',
    ]);

    const hostile = path.join(dir, 'hostile.zip');
    writeFileSync(
      hostile,
      zipOf([
        { path: 'SKILL.md', content: skillMd('hostile') },
        { path: '../../escape', content: 'x' },
      ]),
    );
    const refused = await troupe('skills', 'add', hostile, '--user', 'carol');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/climbs out with "\.\."\s+\(skill_invalid\)/);
    expect((await troupe('skills', 'add')).code).toBe(2);
    expect((await troupe('skills', 'add', folder, '--visibility', 'everyone')).code).toBe(2);
  });
});
