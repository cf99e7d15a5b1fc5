import { mkdir, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveInWorkdir } from './resolve-in-workdir.js';
import { createTempWorkdir, type TempWorkdir } from './testing/create-temp-workdir.js';
import { expectTroupeError } from './testing/expect-troupe-error.js';

let temp: TempWorkdir;
let realWork: string;

beforeEach(async () => {
  temp = await createTempWorkdir();
  realWork = await realpath(temp.workdir);
});
afterEach(async () => {
  await temp.cleanup();
});

describe('resolveInWorkdir', () => {
  it('resolves relative and inside-absolute paths to real paths', async () => {
    await temp.write('src/a.ts', 'x');
    expect(await resolveInWorkdir(temp.workdir, 'src/a.ts')).toBe(path.join(realWork, 'src/a.ts'));
    expect(await resolveInWorkdir(temp.workdir, './src/../src/a.ts')).toBe(path.join(realWork, 'src/a.ts'));
    expect(await resolveInWorkdir(temp.workdir, path.join(temp.workdir, 'src/a.ts'))).toBe(
      path.join(realWork, 'src/a.ts'),
    );
    expect(await resolveInWorkdir(temp.workdir, path.join(realWork, 'src/a.ts'))).toBe(
      path.join(realWork, 'src/a.ts'),
    );
    expect(await resolveInWorkdir(temp.workdir, '.')).toBe(realWork);
    expect(await resolveInWorkdir(temp.workdir, '')).toBe(realWork);
  });

  it.each(['../x', '/etc/passwd', 'a/../../x', '..', '../work-sibling/x'])(
    'refuses %s',
    async (requested) => {
      const error = await expectTroupeError(
        resolveInWorkdir(temp.workdir, requested, { forWrite: true }),
        'path_outside_workdir',
      );
      expect(error.message).toContain(JSON.stringify(requested));
    },
  );

  it('names the requested path, never the host path, in the message', async () => {
    await symlink('/etc/hosts', path.join(temp.workdir, 'hosts'));
    const error = await expectTroupeError(resolveInWorkdir(temp.workdir, 'hosts'), 'path_outside_workdir');
    expect(error.message).toBe('Path "hosts" is outside the workdir');
    expect(error.message).not.toContain(temp.workdir);
  });

  it('refuses NUL bytes', async () => {
    await expectTroupeError(
      resolveInWorkdir(temp.workdir, 'a.txt\0/../../etc/passwd'),
      'path_outside_workdir',
    );
  });

  it('refuses a symlinked file pointing outside', async () => {
    await symlink('/etc/hosts', path.join(temp.workdir, 'hosts'));
    await expectTroupeError(resolveInWorkdir(temp.workdir, 'hosts'), 'path_outside_workdir');
  });

  it('refuses a symlinked directory pointing outside, and paths under it', async () => {
    await symlink(temp.outside, path.join(temp.workdir, 'out'));
    await expectTroupeError(resolveInWorkdir(temp.workdir, 'out'), 'path_outside_workdir');
    await expectTroupeError(resolveInWorkdir(temp.workdir, 'out/secret.txt'), 'path_outside_workdir');
    await expectTroupeError(
      resolveInWorkdir(temp.workdir, 'out/new/file.txt', { forWrite: true }),
      'path_outside_workdir',
    );
  });

  it('refuses a symlink in a parent directory', async () => {
    await mkdir(path.join(temp.workdir, 'deep/er'), { recursive: true });
    await symlink(temp.outside, path.join(temp.workdir, 'deep/er/link'));
    await expectTroupeError(
      resolveInWorkdir(temp.workdir, 'deep/er/link/secret.txt'),
      'path_outside_workdir',
    );
  });

  it('refuses a dangling symlink whose target is outside, for reads and writes', async () => {
    await symlink(path.join(temp.outside, 'not-yet.txt'), path.join(temp.workdir, 'dangling'));
    await expectTroupeError(resolveInWorkdir(temp.workdir, 'dangling'), 'path_outside_workdir');
    await expectTroupeError(
      resolveInWorkdir(temp.workdir, 'dangling', { forWrite: true }),
      'path_outside_workdir',
    );
  });

  it('refuses a relative dangling link that climbs out', async () => {
    await symlink('../outside/new.txt', path.join(temp.workdir, 'climb'));
    await expectTroupeError(
      resolveInWorkdir(temp.workdir, 'climb', { forWrite: true }),
      'path_outside_workdir',
    );
  });

  it('allows a symlink inside the workdir pointing to another file inside', async () => {
    await temp.write('real/target.txt', 'x');
    await symlink('real/target.txt', path.join(temp.workdir, 'alias.txt'));
    await symlink(path.join(temp.workdir, 'real'), path.join(temp.workdir, 'alias-dir'));
    expect(await resolveInWorkdir(temp.workdir, 'alias.txt')).toBe(path.join(realWork, 'real/target.txt'));
    expect(await resolveInWorkdir(temp.workdir, 'alias-dir/target.txt')).toBe(
      path.join(realWork, 'real/target.txt'),
    );
  });

  it('follows a dangling link inside the workdir to its missing target for writes', async () => {
    await symlink('later/new.txt', path.join(temp.workdir, 'pending'));
    expect(await resolveInWorkdir(temp.workdir, 'pending', { forWrite: true })).toBe(
      path.join(realWork, 'later/new.txt'),
    );
    await expectTroupeError(resolveInWorkdir(temp.workdir, 'pending'), 'file_not_found');
  });

  it('accepts missing paths only for writes', async () => {
    expect(await resolveInWorkdir(temp.workdir, 'new/dir/file.txt', { forWrite: true })).toBe(
      path.join(realWork, 'new/dir/file.txt'),
    );
    const error = await expectTroupeError(
      resolveInWorkdir(temp.workdir, 'new/dir/file.txt'),
      'file_not_found',
    );
    expect(error.message).toBe('File not found: "new/dir/file.txt"');
  });

  it('works when the workdir itself is reached through a symlink', async () => {
    const linkedWorkdir = path.join(temp.outside, 'linked-work');
    await symlink(temp.workdir, linkedWorkdir);
    await temp.write('a.txt', 'x');
    expect(await resolveInWorkdir(linkedWorkdir, 'a.txt')).toBe(path.join(realWork, 'a.txt'));
    expect(await resolveInWorkdir(linkedWorkdir, path.join(linkedWorkdir, 'a.txt'))).toBe(
      path.join(realWork, 'a.txt'),
    );
    await expectTroupeError(resolveInWorkdir(linkedWorkdir, '../secret.txt'), 'path_outside_workdir');
  });

  it('reports a symlink loop as invalid input', async () => {
    await symlink('loop-b', path.join(temp.workdir, 'loop-a'));
    await symlink('loop-a', path.join(temp.workdir, 'loop-b'));
    await expectTroupeError(
      resolveInWorkdir(temp.workdir, 'loop-a', { forWrite: true }),
      'tool_input_invalid',
    );
  });
});

describe('resolveInWorkdir with unusual link targets', () => {
  it('treats a link whose target text is "missing" as a link, not as a missing file', async () => {
    await temp.write('missing', 'the target');
    await symlink('missing', path.join(temp.workdir, 'points-to-missing'));
    expect(await resolveInWorkdir(temp.workdir, 'points-to-missing')).toBe(path.join(realWork, 'missing'));
  });

  it('resolves .. in a link target against the real directory of the link, not the lexical one', async () => {
    await mkdir(path.join(temp.workdir, 'inner'));
    await mkdir(path.join(temp.workdir, 'x/y'), { recursive: true });
    // Real: inner/../../outside is outside. Lexically from x/y/via it would be x/outside, inside.
    await symlink('../../outside/new.txt', path.join(temp.workdir, 'inner/up'));
    await symlink('../../inner', path.join(temp.workdir, 'x/y/via'));
    await expectTroupeError(
      resolveInWorkdir(temp.workdir, 'x/y/via/up', { forWrite: true }),
      'path_outside_workdir',
    );
    // The converse, lexically outside but really inside, is allowed.
    await mkdir(path.join(temp.workdir, 'deep/a/b'), { recursive: true });
    await symlink('../../../target.txt', path.join(temp.workdir, 'deep/a/b/home'));
    await symlink('deep/a/b', path.join(temp.workdir, 'short'));
    expect(await resolveInWorkdir(temp.workdir, 'short/home', { forWrite: true })).toBe(
      path.join(realWork, 'target.txt'),
    );
  });
});
