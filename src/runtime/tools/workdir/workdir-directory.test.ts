import { chown, lstat, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempWorkdir, type TempWorkdir } from '../../../../test/helpers/workdir/create-temp-workdir.js';
import { expectTroupeError } from '../../../../test/helpers/workdir/expect-troupe-error.js';
import { snapshotTree } from '../../../../test/helpers/workdir/snapshot-tree.js';
import { openInWorkdir } from './open-in-workdir.js';
import { openWorkdirDirectory } from './open-workdir-directory.js';
import type { WorkdirDirectory } from './workdir-directory.js';

let temp: TempWorkdir;
let outsideBefore: Record<string, string>;
const opened: WorkdirDirectory[] = [];

beforeEach(async () => {
  temp = await createTempWorkdir();
  outsideBefore = snapshotTree(temp.outside);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((directory) => directory.close().catch(() => undefined)));
  // Whatever a test did, nothing outside the workdir changed.
  expect(snapshotTree(temp.outside)).toEqual(outsideBefore);
  await temp.cleanup();
});

async function directoryAt(relative: string, options: Parameters<typeof openWorkdirDirectory>[2] = {}) {
  const directory = await openWorkdirDirectory(temp.workdir, relative, options);
  opened.push(directory);
  return directory;
}

const inWork = (relative: string) => path.join(temp.workdir, relative);
const secret = () => path.join(temp.outside, 'secret.txt');

describe('WorkdirDirectory', () => {
  it('creates files exclusively: a taken name, a final-component link to an outside file included, is left alone', async () => {
    const uploads = await directoryAt('uploads', { create: true });
    expect(await uploads.createFile('a.txt', 'one')).toBe(true);
    expect(await uploads.createFile('a.txt', 'two')).toBe(false);
    await symlink(secret(), inWork('uploads/link.txt'));
    await symlink(path.join(temp.outside, 'new.txt'), inWork('uploads/dangling.txt'));
    expect(await uploads.createFile('link.txt', 'pwned')).toBe(false);
    expect(await uploads.createFile('dangling.txt', 'pwned')).toBe(false);
    expect(await readFile(inWork('uploads/a.txt'), 'utf8')).toBe('one');
    expect((await stat(inWork('uploads/a.txt'))).mode & 0o777).toBe(0o644);
  });

  it('replaces a file whole: a final-component link is replaced by the file, its outside target never written', async () => {
    await mkdir(inWork('results'));
    await symlink(secret(), inWork('results/r.md'));
    const results = await directoryAt('results');
    await results.writeFile('r.md', 'the answer');
    expect((await lstat(inWork('results/r.md'))).isFile()).toBe(true);
    expect(await readFile(inWork('results/r.md'), 'utf8')).toBe('the answer');
    // A directory in the way (with a link to the outside inside it) is removed, the outside kept.
    await mkdir(inWork('results/d.md'));
    await symlink(temp.outside, inWork('results/d.md/out'));
    await results.writeFile('d.md', 'replaced');
    expect(await readFile(inWork('results/d.md'), 'utf8')).toBe('replaced');
    expect((await results.list()).map((entry) => entry.name).sort()).toEqual(['d.md', 'r.md']);
  });

  it('reclaims reserved paths: a directory link to the outside is replaced by a real directory, never followed', async () => {
    await symlink(temp.outside, inWork('.troupe'));
    const results = await directoryAt('.troupe/subagent-results', { create: true, reclaim: true });
    await results.writeFile('run_1.md', 'spilled');
    expect((await lstat(inWork('.troupe'))).isDirectory()).toBe(true);
    expect(await readFile(inWork('.troupe/subagent-results/run_1.md'), 'utf8')).toBe('spilled');
    // A file in the way is replaced too; a link to a file outside as well.
    await results.close();
    await writeFile(inWork('.cache'), 'x');
    await symlink(secret(), inWork('.other'));
    await (await directoryAt('.cache', { create: true, reclaim: true })).createFile('f', 'y');
    await (await directoryAt('.other', { create: true, reclaim: true })).createFile('f', 'z');
    expect(await readFile(inWork('.other/f'), 'utf8')).toBe('z');
  });

  it('without reclaim, follows links only inside the workdir and refuses one leading out', async () => {
    await mkdir(inWork('real'));
    await symlink('real', inWork('inside'));
    await symlink(temp.outside, inWork('out'));
    expect((await directoryAt('inside')).shownPath).toBe('real');
    const error = await expectTroupeError(
      directoryAt('out/deeper', { create: true }),
      'path_outside_workdir',
    );
    expect(error.message).not.toContain(temp.outside);
    const child = await expectTroupeError(
      (await directoryAt('.')).openDirectory('out'),
      'path_outside_workdir',
    );
    expect(child.message).toBe('out is a symbolic link; it is not followed');
  });

  it('removes whole trees without following a link anywhere in them', async () => {
    await mkdir(inWork('tree/a/b'), { recursive: true });
    await writeFile(inWork('tree/a/b/f'), 'x');
    await symlink(temp.outside, inWork('tree/a/out'));
    await symlink(secret(), inWork('tree/secret'));
    const root = await directoryAt('.');
    expect(await root.remove('tree')).toBe(true);
    expect(await root.remove('tree')).toBe(false);
    expect(await root.statEntry('tree')).toBeUndefined();
    // A link at the name itself goes as a link.
    await symlink(temp.outside, inWork('gone'));
    expect(await root.remove('gone')).toBe(true);
  });

  it('renames within the directory, replacing a link at the new name instead of writing through it', async () => {
    const root = await directoryAt('.');
    await root.createFile('staged', 'new');
    await symlink(secret(), inWork('final'));
    await root.rename('staged', 'final');
    expect(await readFile(inWork('final'), 'utf8')).toBe('new');
    expect(await root.readFile('final', 100)).toEqual(Buffer.from('new'));
    expect(await root.readFile('final', 2)).toBeUndefined();
  });

  it('reads no link and names one entry only', async () => {
    await symlink(secret(), inWork('link'));
    const root = await directoryAt('.');
    await expectTroupeError(root.readFile('link', 100), 'path_outside_workdir');
    for (const name of ['', '.', '..', 'a/b', 'x\0y']) {
      await expectTroupeError(root.createFile(name, 'x'), 'tool_input_invalid');
    }
    const long = await expectTroupeError(root.createFile('é'.repeat(128), 'x'), 'tool_input_invalid');
    expect(long.message).toContain('longer than 255 bytes');
    expect(await root.createFile('é'.repeat(127), 'x')).toBe(true);
  });

  it.runIf(process.geteuid?.() === 0)(
    'gives what it creates for the sandbox to the workdir owner, and keeps server files the server’s',
    async () => {
      await chown(temp.workdir, 100_000 + 4747, 100_000 + 4747);
      const made = await directoryAt('made/deep', { create: true });
      await made.createFile('server.txt', 'x');
      for (const directory of ['made', 'made/deep'])
        expect((await stat(inWork(directory))).uid).toBe(104_747);
      expect((await stat(inWork('made/deep/server.txt'))).uid).toBe(0);
      const reserved = await directoryAt('.skills', {
        create: true,
        reclaim: true,
        owner: 'server',
        mode: 0o555,
      });
      await reserved.close();
      const skills = await stat(inWork('.skills'));
      expect([skills.uid, skills.mode & 0o777]).toEqual([0, 0o555]);
      // A file the tools create for the model belongs to the workdir owner as well.
      const written = await openInWorkdir(temp.workdir, 'tool/out.txt', 'write');
      await written.handle.close();
      expect((await stat(inWork('tool/out.txt'))).uid).toBe(104_747);
      expect((await stat(inWork('tool'))).uid).toBe(104_747);
    },
  );
});
