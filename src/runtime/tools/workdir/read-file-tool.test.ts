import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileTool } from './read-file-tool.js';
import { createTempWorkdir, type TempWorkdir } from '../../../../test/helpers/workdir/create-temp-workdir.js';
import { expectTroupeError } from '../../../../test/helpers/workdir/expect-troupe-error.js';
import { makeToolContext } from '../../../../test/helpers/workdir/make-tool-context.js';
import { runTool } from '../../../../test/helpers/workdir/run-tool.js';
import { WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

let temp: TempWorkdir;
beforeEach(async () => {
  temp = await createTempWorkdir();
});
afterEach(async () => {
  await temp.cleanup();
});

const read = (input: unknown) => runTool(readFileTool, input, makeToolContext(temp.workdir));

describe('read_file', () => {
  it('returns the content exactly', async () => {
    await temp.write('notes/a.md', '# Title\r\nbody\n');
    expect(await read({ path: 'notes/a.md' })).toBe('# Title\r\nbody\n');
  });

  it('returns a slice of lines with offset and limit, endings kept', async () => {
    await temp.write('lines.txt', 'one\ntwo\r\nthree\nfour');
    expect(await read({ path: 'lines.txt', offset: 2, limit: 2 })).toBe('two\r\nthree\n');
    expect(await read({ path: 'lines.txt', offset: 3 })).toBe('three\nfour');
    expect(await read({ path: 'lines.txt', limit: 1 })).toBe('one\n');
  });

  it('pages through a file larger than the read limit', async () => {
    const line = `${'x'.repeat(99)}\n`;
    await temp.write('big.txt', line.repeat(5000));
    const error = await expectTroupeError(read({ path: 'big.txt' }), 'file_too_large');
    expect(error.message).toContain('offset and limit');
    const slice = await read({ path: 'big.txt', offset: 4999, limit: 10 });
    expect(slice).toBe(line.repeat(2));
    await expectTroupeError(read({ path: 'big.txt', offset: 1, limit: 4000 }), 'file_too_large');
  });

  it('reads lines that straddle its internal chunks', async () => {
    const lines = Array.from({ length: 3000 }, (_, index) => `line ${index + 1} ${'y'.repeat(index % 97)}`);
    await temp.write('chunky.txt', `${lines.join('\n')}\n`);
    expect(await read({ path: 'chunky.txt', offset: 1500, limit: 3 })).toBe(
      `${lines.slice(1499, 1502).join('\n')}\n`,
    );
  });

  it('accepts a file at exactly the limit', async () => {
    await temp.write('exact.txt', 'a'.repeat(WORKDIR_TOOL_LIMITS.readBytes));
    expect(await read({ path: 'exact.txt' })).toHaveLength(WORKDIR_TOOL_LIMITS.readBytes);
  });

  it('says how long the file is when offset is past its end', async () => {
    await temp.write('short.txt', 'a\nb\n');
    const error = await expectTroupeError(read({ path: 'short.txt', offset: 5 }), 'tool_input_invalid');
    expect(error.message).toContain('which has 2 lines');
  });

  it('errors on missing files, directories and binary files', async () => {
    await expectTroupeError(read({ path: 'nope.txt' }), 'file_not_found');
    await temp.write('dir/inner.txt', 'x');
    await expectTroupeError(read({ path: 'dir' }), 'tool_input_invalid');
    await temp.write('image.png', Buffer.from([0x89, 0x50, 0x00, 0x01]));
    await expectTroupeError(read({ path: 'image.png' }), 'tool_input_invalid');
  });

  it('refuses escapes', async () => {
    await symlink('/etc/hosts', path.join(temp.workdir, 'hosts'));
    await symlink(temp.outside, path.join(temp.workdir, 'out'));
    for (const requested of [
      '../outside/secret.txt',
      '/etc/passwd',
      'a/../../outside/secret.txt',
      'hosts',
      'out/secret.txt',
    ]) {
      await expectTroupeError(read({ path: requested }), 'path_outside_workdir');
    }
  });

  it('reads through a symlink that stays inside', async () => {
    await temp.write('real.txt', 'inside');
    await symlink('real.txt', path.join(temp.workdir, 'alias.txt'));
    expect(await read({ path: 'alias.txt' })).toBe('inside');
  });

  it('rejects unknown fields and bad numbers at validation', async () => {
    await expect(read({ path: 'a', extra: 1 })).rejects.toThrow();
    await expect(read({ path: 'a', offset: 0 })).rejects.toThrow();
  });
});
