import { readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from './edit-file-tool.js';
import { createTempWorkdir, type TempWorkdir } from '../../../../test/helpers/workdir/create-temp-workdir.js';
import { expectTroupeError } from '../../../../test/helpers/workdir/expect-troupe-error.js';
import { makeToolContext } from '../../../../test/helpers/workdir/make-tool-context.js';
import { runTool } from '../../../../test/helpers/workdir/run-tool.js';

let temp: TempWorkdir;
beforeEach(async () => {
  temp = await createTempWorkdir();
});
afterEach(async () => {
  await temp.cleanup();
});

const edit = (input: unknown) => runTool(editFileTool, input, makeToolContext(temp.workdir));
const contentOf = (relative: string) => readFile(path.join(temp.workdir, relative), 'utf8');

describe('edit_file', () => {
  it('is sensitive', () => {
    expect(editFileTool.sensitive).toBe(true);
  });

  it('replaces a unique occurrence', async () => {
    await temp.write('a.ts', 'const a = 1;\nconst b = 2;\n');
    expect(await edit({ path: 'a.ts', old_string: 'b = 2', new_string: 'b = 3' })).toBe(
      'Edited "a.ts": replaced 1 occurrence',
    );
    expect(await contentOf('a.ts')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('keeps replacement patterns like $& literal', async () => {
    await temp.write('a.txt', 'price: X');
    await edit({ path: 'a.txt', old_string: 'X', new_string: "$& $1 $$ $'" });
    expect(await contentOf('a.txt')).toBe("price: $& $1 $$ $'");
  });

  it('refuses an ambiguous old_string unless replace_all', async () => {
    await temp.write('a.txt', 'foo bar foo baz foo');
    const error = await expectTroupeError(
      edit({ path: 'a.txt', old_string: 'foo', new_string: 'x' }),
      'tool_input_invalid',
    );
    expect(error.message).toContain('occurs 3 times');
    expect(await contentOf('a.txt')).toBe('foo bar foo baz foo');
    expect(await edit({ path: 'a.txt', old_string: 'foo', new_string: 'qux', replace_all: true })).toBe(
      'Edited "a.txt": replaced 3 occurrences',
    );
    expect(await contentOf('a.txt')).toBe('qux bar qux baz qux');
  });

  it('shrinks the file when the replacement is shorter', async () => {
    await temp.write('a.txt', 'a long long line\nend\n');
    await edit({ path: 'a.txt', old_string: 'a long long line\n', new_string: '' });
    expect(await contentOf('a.txt')).toBe('end\n');
  });

  it('keeps a byte-order mark', async () => {
    await temp.write('bom.txt', '\uFEFFhello');
    await edit({ path: 'bom.txt', old_string: 'hello', new_string: 'bye' });
    expect(await contentOf('bom.txt')).toBe('\uFEFFbye');
  });

  it('errors when old_string is missing, identical to new_string, or the file is absent', async () => {
    await temp.write('a.txt', 'abc');
    await expectTroupeError(
      edit({ path: 'a.txt', old_string: 'zzz', new_string: 'y' }),
      'tool_input_invalid',
    );
    await expectTroupeError(
      edit({ path: 'a.txt', old_string: 'abc', new_string: 'abc' }),
      'tool_input_invalid',
    );
    await expectTroupeError(
      edit({ path: 'missing.txt', old_string: 'a', new_string: 'b' }),
      'file_not_found',
    );
    await expect(edit({ path: 'a.txt', old_string: '', new_string: 'b' })).rejects.toThrow();
  });

  it('refuses binary and non-UTF-8 files', async () => {
    await temp.write('bin', Buffer.from([0x61, 0x00, 0x62]));
    await expectTroupeError(edit({ path: 'bin', old_string: 'a', new_string: 'c' }), 'tool_input_invalid');
    await temp.write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await expectTroupeError(
      edit({ path: 'latin1.txt', old_string: 'caf', new_string: 'x' }),
      'tool_input_invalid',
    );
  });

  it('refuses to edit through a symlink pointing outside', async () => {
    await symlink(path.join(temp.outside, 'secret.txt'), path.join(temp.workdir, 'secret-link'));
    await symlink(temp.outside, path.join(temp.workdir, 'out'));
    await expectTroupeError(
      edit({ path: 'secret-link', old_string: 'top', new_string: 'x' }),
      'path_outside_workdir',
    );
    await expectTroupeError(
      edit({ path: 'out/secret.txt', old_string: 'top', new_string: 'x' }),
      'path_outside_workdir',
    );
    await expectTroupeError(
      edit({ path: '../outside/secret.txt', old_string: 'top', new_string: 'x' }),
      'path_outside_workdir',
    );
    expect(await readFile(path.join(temp.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });
});
