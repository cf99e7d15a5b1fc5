import { lstat, mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Run } from '../../core/records/run.js';
import { createTempWorkdir, type TempWorkdir } from '../../../test/helpers/workdir/create-temp-workdir.js';
import { snapshotTree } from '../../../test/helpers/workdir/snapshot-tree.js';
import { formatChildResult, spillPath } from './format-child-result.js';

let temp: TempWorkdir;

beforeEach(async () => {
  temp = await createTempWorkdir();
  await mkdir(path.join(temp.outside, 'dir'));
});
afterEach(async () => {
  await temp.cleanup();
});

const RUN_ID = 'run_child_1';
const run = { id: RUN_ID, status: 'completed', output: 'x'.repeat(500), error: null } as unknown as Run;
const inWork = (relative: string) => path.join(temp.workdir, relative);

/** Each plants links where the spill goes, as an `execute` command of the same project could. */
const PLANTED: Record<string, (outside: string) => Promise<void>> = {
  '.troupe linked to a directory outside': (outside) => symlink(path.join(outside, 'dir'), inWork('.troupe')),
  '.troupe linked to a file outside': (outside) =>
    symlink(path.join(outside, 'secret.txt'), inWork('.troupe')),
  'subagent-results linked to a directory outside': async (outside) => {
    await mkdir(inWork('.troupe'));
    await symlink(outside, inWork('.troupe/subagent-results'));
  },
  'the result file linked to a file outside': async (outside) => {
    await mkdir(inWork('.troupe/subagent-results'), { recursive: true });
    await symlink(path.join(outside, 'secret.txt'), inWork(spillPath(RUN_ID)));
  },
  'the result file linked to a missing file outside': async (outside) => {
    await mkdir(inWork('.troupe/subagent-results'), { recursive: true });
    await symlink(path.join(outside, 'created-by-server.md'), inWork(spillPath(RUN_ID)));
  },
};

describe('the child-result spill', () => {
  it.each(Object.keys(PLANTED))('lands in the workdir and changes nothing outside: %s', async (name) => {
    await PLANTED[name]?.(temp.outside);
    const before = snapshotTree(temp.outside);
    const { text } = await formatChildResult(run, temp.workdir, 100);
    expect(text).toContain(spillPath(RUN_ID));
    expect(snapshotTree(temp.outside)).toEqual(before);
    expect((await lstat(inWork('.troupe'))).isDirectory()).toBe(true);
    expect((await lstat(inWork(spillPath(RUN_ID)))).isFile()).toBe(true);
    expect(await readFile(inWork(spillPath(RUN_ID)), 'utf8')).toBe('x'.repeat(500));
  });

  it('writes nothing for a result under the cap', async () => {
    expect((await formatChildResult(run, temp.workdir, 1000)).text).toBe('x'.repeat(500));
    await expect(lstat(inWork('.troupe'))).rejects.toThrow();
  });
});
