import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, realpath, rename, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openInWorkdir } from './open-in-workdir.js';
import type { OpenInWorkdirMode } from './opened-in-workdir.js';
import { createTempWorkdir, type TempWorkdir } from '../../../../test/helpers/workdir/create-temp-workdir.js';
import { expectTroupeError } from '../../../../test/helpers/workdir/expect-troupe-error.js';
import { assertDescriptorInside, openWorkdirRoot } from './workdir-root.js';

let temp: TempWorkdir;
let realWork: string;

beforeEach(async () => {
  temp = await createTempWorkdir();
  realWork = await realpath(temp.workdir);
});
afterEach(async () => {
  await temp.cleanup();
});

/** Opens, closes, and answers where the descriptor was (workdir-relative) and whether it was created. */
async function openAt(
  requested: string,
  mode: OpenInWorkdirMode = 'read',
  workdir = temp.workdir,
): Promise<{ shownPath: string; realPath: string; created: boolean }> {
  const opened = await openInWorkdir(workdir, requested, mode);
  await opened.handle.close();
  return { shownPath: opened.shownPath, realPath: opened.realPath, created: opened.created };
}

const shown = async (requested: string, mode: OpenInWorkdirMode = 'read') =>
  (await openAt(requested, mode)).shownPath;

describe('openInWorkdir', () => {
  it('opens relative and inside-absolute paths, and reports the real path', async () => {
    await temp.write('src/a.ts', 'x');
    expect(await openAt('src/a.ts')).toEqual({
      shownPath: 'src/a.ts',
      realPath: path.join(realWork, 'src/a.ts'),
      created: false,
    });
    expect(await shown('./src/../src/a.ts')).toBe('src/a.ts');
    expect(await shown(path.join(temp.workdir, 'src/a.ts'))).toBe('src/a.ts');
    expect(await shown(path.join(realWork, 'src/a.ts'))).toBe('src/a.ts');
    expect(await shown('.', 'directory')).toBe('.');
    expect(await shown('', 'any')).toBe('.');
  });

  it.each(['../x', '/etc/passwd', 'a/../../x', '..', '../work-sibling/x'])(
    'refuses %s',
    async (requested) => {
      const error = await expectTroupeError(openAt(requested, 'write'), 'path_outside_workdir');
      expect(error.message).toBe(`Path ${JSON.stringify(requested)} escapes the workdir`);
    },
  );

  it('refuses NUL bytes', async () => {
    await expectTroupeError(openAt('a.txt\0/../../etc/passwd'), 'path_outside_workdir');
  });

  it('names the requested path, never the host path, in its messages', async () => {
    await symlink('/etc/hosts', path.join(temp.workdir, 'hosts'));
    const error = await expectTroupeError(openAt('hosts'), 'path_outside_workdir');
    expect(error.message).toBe('Path "hosts" escapes the workdir');
    const missing = await expectTroupeError(openAt('new/dir/file.txt'), 'file_not_found');
    expect(missing.message).toBe('File not found: "new/dir/file.txt"');
  });

  it('refuses a symlinked file pointing outside, in every mode', async () => {
    await symlink(path.join(temp.outside, 'secret.txt'), path.join(temp.workdir, 'secret-link'));
    for (const mode of ['read', 'edit', 'write', 'any'] as const) {
      await expectTroupeError(openAt('secret-link', mode), 'path_outside_workdir');
    }
    expect(await readFile(path.join(temp.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('refuses a symlinked directory component pointing outside, wherever it sits', async () => {
    await symlink(temp.outside, path.join(temp.workdir, 'out'));
    await mkdir(path.join(temp.workdir, 'deep/er'), { recursive: true });
    await symlink(temp.outside, path.join(temp.workdir, 'deep/er/link'));
    await expectTroupeError(openAt('out', 'directory'), 'path_outside_workdir');
    await expectTroupeError(openAt('out/secret.txt'), 'path_outside_workdir');
    await expectTroupeError(openAt('deep/er/link/secret.txt'), 'path_outside_workdir');
    await expectTroupeError(openAt('out/new/file.txt', 'write'), 'path_outside_workdir');
    expect(await readdir(temp.outside)).toEqual(['secret.txt']);
  });

  it('refuses a dangling symlink whose target is outside, and creates nothing there', async () => {
    await symlink(path.join(temp.outside, 'not-yet.txt'), path.join(temp.workdir, 'dangling'));
    await expectTroupeError(openAt('dangling'), 'path_outside_workdir');
    await expectTroupeError(openAt('dangling', 'write'), 'path_outside_workdir');
    await symlink('../outside/new.txt', path.join(temp.workdir, 'climb'));
    await expectTroupeError(openAt('climb', 'write'), 'path_outside_workdir');
    expect(await readdir(temp.outside)).toEqual(['secret.txt']);
  });

  it('follows a dangling link inside the workdir to its missing target for writes only', async () => {
    await symlink('later/new.txt', path.join(temp.workdir, 'pending'));
    await expectTroupeError(openAt('pending'), 'file_not_found');
    expect(await openAt('pending', 'write')).toMatchObject({ shownPath: 'later/new.txt', created: true });
    expect((await lstat(path.join(temp.workdir, 'pending'))).isSymbolicLink()).toBe(true);
  });

  it('follows symlinks that stay inside, files and directories', async () => {
    await temp.write('real/target.txt', 'x');
    await symlink('real/target.txt', path.join(temp.workdir, 'alias.txt'));
    await symlink(path.join(temp.workdir, 'real'), path.join(temp.workdir, 'alias-dir'));
    await symlink(path.join(realWork, 'real'), path.join(temp.workdir, 'real-alias-dir'));
    expect(await shown('alias.txt')).toBe('real/target.txt');
    expect(await shown('alias-dir/target.txt')).toBe('real/target.txt');
    expect(await shown('real-alias-dir/target.txt')).toBe('real/target.txt');
    expect(await shown('alias-dir', 'directory')).toBe('real');
  });

  it('creates missing parent directories for writes only', async () => {
    expect(await openAt('new/dir/file.txt', 'write')).toMatchObject({
      shownPath: 'new/dir/file.txt',
      created: true,
    });
    expect(await openAt('new/dir/file.txt', 'write')).toMatchObject({ created: false });
    await temp.write('plain', 'x');
    await expectTroupeError(openAt('plain/file.txt', 'write'), 'tool_input_invalid');
    await expectTroupeError(openAt('plain/file.txt'), 'file_not_found');
  });

  it('checks the kind of what it opened', async () => {
    await temp.write('dir/file.txt', 'x');
    for (const mode of ['read', 'edit', 'write'] as const) {
      await expectTroupeError(openAt('dir', mode), 'tool_input_invalid');
    }
    await expectTroupeError(openAt('dir/file.txt', 'directory'), 'tool_input_invalid');
    expect(await shown('dir', 'any')).toBe('dir');
  });

  it('works when the workdir itself is reached through a symlink', async () => {
    const linkedWorkdir = path.join(temp.outside, 'linked-work');
    await symlink(temp.workdir, linkedWorkdir);
    await temp.write('a.txt', 'x');
    expect((await openAt('a.txt', 'read', linkedWorkdir)).shownPath).toBe('a.txt');
    expect((await openAt(path.join(linkedWorkdir, 'a.txt'), 'read', linkedWorkdir)).shownPath).toBe('a.txt');
    await expectTroupeError(openAt('../secret.txt', 'read', linkedWorkdir), 'path_outside_workdir');
  });

  it('reports a symlink loop as invalid input', async () => {
    await symlink('loop-b', path.join(temp.workdir, 'loop-a'));
    await symlink('loop-a', path.join(temp.workdir, 'loop-b'));
    await expectTroupeError(openAt('loop-a', 'write'), 'tool_input_invalid');
  });
});

describe('openInWorkdir with unusual link targets', () => {
  it('treats a link whose target text is "missing" as a link, not as a missing file', async () => {
    await temp.write('missing', 'the target');
    await symlink('missing', path.join(temp.workdir, 'points-to-missing'));
    expect(await shown('points-to-missing')).toBe('missing');
  });

  it('resolves .. in a link target against the real directory of the link, not the lexical one', async () => {
    await mkdir(path.join(temp.workdir, 'inner'));
    await mkdir(path.join(temp.workdir, 'x/y'), { recursive: true });
    // Real: inner/../../outside is outside. Lexically from x/y/via it would be x/outside, inside.
    await symlink('../../outside/new.txt', path.join(temp.workdir, 'inner/up'));
    await symlink('../../inner', path.join(temp.workdir, 'x/y/via'));
    await expectTroupeError(openAt('x/y/via/up', 'write'), 'path_outside_workdir');
    // The converse, lexically outside but really inside, is allowed.
    await mkdir(path.join(temp.workdir, 'deep/a/b'), { recursive: true });
    await symlink('../../../target.txt', path.join(temp.workdir, 'deep/a/b/home'));
    await symlink('deep/a/b', path.join(temp.workdir, 'short'));
    expect(await shown('short/home', 'write')).toBe('target.txt');
    expect(await readdir(temp.outside)).toEqual(['secret.txt']);
  });

  it('refuses an absolute link target that climbs out after the workdir prefix', async () => {
    await symlink(path.join(realWork, 'a/../../outside/secret.txt'), path.join(temp.workdir, 'sly'));
    await mkdir(path.join(temp.workdir, 'a'));
    await expectTroupeError(openAt('sly'), 'path_outside_workdir');
  });
});

describe('the descriptor check', () => {
  it('refuses a descriptor whose directory was moved out of the workdir after it was opened', async () => {
    await temp.write('moving/file.txt', 'x');
    const root = await openWorkdirRoot(temp.workdir);
    const directory = await open(
      path.join(temp.workdir, 'moving'),
      constants.O_RDONLY | constants.O_DIRECTORY,
    );
    try {
      expect(await assertDescriptorInside(root, directory, 'moving')).toBe(path.join(realWork, 'moving'));
      await rename(path.join(temp.workdir, 'moving'), path.join(temp.outside, 'moved'));
      const error = await expectTroupeError(
        assertDescriptorInside(root, directory, 'moving'),
        'path_outside_workdir',
      );
      expect(error.message).toBe('Path "moving" escapes the workdir');
    } finally {
      await directory.close();
      await root.handle.close();
    }
  });
});
