import { lstat, readFile, readlink, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempWorkdir, type TempWorkdir } from '../../../../test/helpers/workdir/create-temp-workdir.js';
import { expectTroupeError } from '../../../../test/helpers/workdir/expect-troupe-error.js';
import { makeToolContext } from '../../../../test/helpers/workdir/make-tool-context.js';
import { runTool } from '../../../../test/helpers/workdir/run-tool.js';
import { writeFileTool } from './write-file-tool.js';

let temp: TempWorkdir;
beforeEach(async () => {
  temp = await createTempWorkdir();
});
afterEach(async () => {
  await temp.cleanup();
});

const write = (input: unknown) => runTool(writeFileTool, input, makeToolContext(temp.workdir));

describe('write_file', () => {
  it('is sensitive', () => {
    expect(writeFileTool.sensitive).toBe(true);
  });

  it('creates a file and its parent directories', async () => {
    expect(await write({ path: 'a/b/c.txt', content: 'héllo' })).toBe('Created "a/b/c.txt" (6 bytes)');
    expect(await readFile(path.join(temp.workdir, 'a/b/c.txt'), 'utf8')).toBe('héllo');
  });

  it('replaces the whole content of an existing file', async () => {
    await temp.write('f.txt', 'a much longer original content');
    expect(await write({ path: 'f.txt', content: 'short' })).toBe('Overwrote "f.txt" (5 bytes)');
    expect(await readFile(path.join(temp.workdir, 'f.txt'), 'utf8')).toBe('short');
  });

  it('writes an empty file', async () => {
    await write({ path: 'empty.txt', content: '' });
    expect(await readFile(path.join(temp.workdir, 'empty.txt'), 'utf8')).toBe('');
  });

  it('refuses ../x, absolute paths outside and a/../../x', async () => {
    for (const requested of ['../x.txt', '/tmp/troupe-escape.txt', 'a/../../x.txt']) {
      await expectTroupeError(write({ path: requested, content: 'x' }), 'path_outside_workdir');
    }
  });

  it('refuses to write through a symlinked parent directory', async () => {
    await symlink(temp.outside, path.join(temp.workdir, 'out'));
    await expectTroupeError(write({ path: 'out/planted.txt', content: 'x' }), 'path_outside_workdir');
    await expectTroupeError(write({ path: 'out/new-dir/planted.txt', content: 'x' }), 'path_outside_workdir');
    await expect(lstat(path.join(temp.outside, 'planted.txt'))).rejects.toThrow();
    await expect(lstat(path.join(temp.outside, 'new-dir'))).rejects.toThrow();
  });

  it('refuses to overwrite a file through a symlink pointing outside', async () => {
    await symlink(path.join(temp.outside, 'secret.txt'), path.join(temp.workdir, 'secret-link'));
    await expectTroupeError(write({ path: 'secret-link', content: 'pwned' }), 'path_outside_workdir');
    expect(await readFile(path.join(temp.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('refuses a dangling symlink to outside and leaves the target uncreated', async () => {
    await symlink(path.join(temp.outside, 'created.txt'), path.join(temp.workdir, 'dangling'));
    await expectTroupeError(write({ path: 'dangling', content: 'x' }), 'path_outside_workdir');
    await expect(lstat(path.join(temp.outside, 'created.txt'))).rejects.toThrow();
    expect(await readlink(path.join(temp.workdir, 'dangling'))).toBe(path.join(temp.outside, 'created.txt'));
  });

  it('writes through a symlink that stays inside, to its target', async () => {
    await temp.write('real.txt', 'old');
    await symlink('real.txt', path.join(temp.workdir, 'alias.txt'));
    await write({ path: 'alias.txt', content: 'new' });
    expect(await readFile(path.join(temp.workdir, 'real.txt'), 'utf8')).toBe('new');
    expect((await lstat(path.join(temp.workdir, 'alias.txt'))).isSymbolicLink()).toBe(true);
  });

  it('errors when the path is a directory', async () => {
    await temp.write('dir/x.txt', 'x');
    await expectTroupeError(write({ path: 'dir', content: 'x' }), 'tool_input_invalid');
  });
});
