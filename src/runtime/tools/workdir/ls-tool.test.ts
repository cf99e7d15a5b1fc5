import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lsTool } from './ls-tool.js';
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

const ls = (input: unknown) => runTool(lsTool, input, makeToolContext(temp.workdir));

describe('ls', () => {
  it('lists entries sorted, with types, file sizes and a / on directories', async () => {
    await temp.write('b.txt', 'hello');
    await temp.write('a/inner.txt', 'x');
    await mkdir(path.join(temp.workdir, 'C'));
    await symlink(temp.outside, path.join(temp.workdir, 'link'));
    expect(await ls({})).toEqual({
      path: '.',
      entries: [
        { name: 'C/', type: 'directory' },
        { name: 'a/', type: 'directory' },
        { name: 'b.txt', type: 'file', size: 5 },
        { name: 'link', type: 'symlink' },
      ],
    });
  });

  it('lists a subdirectory, and a single file', async () => {
    await temp.write('src/x.ts', 'abc');
    expect(await ls({ path: 'src' })).toEqual({
      path: 'src',
      entries: [{ name: 'x.ts', type: 'file', size: 3 }],
    });
    expect(await ls({ path: 'src/x.ts' })).toEqual({
      path: 'src/x.ts',
      entries: [{ name: 'x.ts', type: 'file', size: 3 }],
    });
  });

  it('caps the listing', async () => {
    await Promise.all(
      Array.from({ length: WORKDIR_TOOL_LIMITS.lsEntries + 5 }, (_, index) =>
        temp.write(`many/f${String(index).padStart(5, '0')}`, ''),
      ),
    );
    const listing = await ls({ path: 'many' });
    expect(listing).toMatchObject({ truncated: true, total_entries: WORKDIR_TOOL_LIMITS.lsEntries + 5 });
  });

  it('refuses escapes and reports missing directories', async () => {
    await symlink(temp.outside, path.join(temp.workdir, 'out'));
    for (const requested of ['..', '/etc', 'a/../../outside', 'out']) {
      await expectTroupeError(ls({ path: requested }), 'path_outside_workdir');
    }
    await expectTroupeError(ls({ path: 'missing' }), 'file_not_found');
  });
});
