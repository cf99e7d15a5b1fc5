import { mkdir, readFile, realpath, rename, symlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openInWorkdir } from './open-in-workdir.js';
import type { OpenedInWorkdir } from './opened-in-workdir.js';
import { createTempWorkdir, type TempWorkdir } from '../../../../test/helpers/workdir/create-temp-workdir.js';
import { openWalkedFile, walkWorkdir, type WalkEntry } from './walk-workdir.js';
import { WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

let temp: TempWorkdir;
let root: OpenedInWorkdir;

beforeEach(async () => {
  temp = await createTempWorkdir();
  await temp.write('a/x.txt', 'inside x\n');
  await temp.write('b/y.txt', 'inside y\n');
  await temp.write('../outside/only-outside.txt', 'outside\n');
  root = await openInWorkdir(temp.workdir, '.', 'directory');
});
afterEach(async () => {
  await root.handle.close();
  await temp.cleanup();
});

const signal = new AbortController().signal;

/** Walks the whole workdir, calling `during` at each entry while the walk is paused on it. */
async function walkAll(
  during: (entry: WalkEntry) => Promise<void> = () => Promise.resolve(),
): Promise<string[]> {
  const seen: string[] = [];
  for await (const entry of walkWorkdir(root.handle, { signal, realWorkdir: root.realWorkdir })) {
    seen.push(`${entry.relativePath}:${entry.kind}`);
    await during(entry);
  }
  return seen;
}

describe('walkWorkdir', () => {
  it('lists depth-first in name order, symlinks reported and not entered', async () => {
    await symlink(temp.outside, path.join(temp.workdir, 'c-link'));
    expect(await walkAll()).toEqual([
      'a:directory',
      'b:directory',
      'c-link:symlink',
      'a/x.txt:file',
      'b/y.txt:file',
    ]);
  });

  it('does not enter a directory swapped for a symlink to outside after it was listed', async () => {
    const seen = await walkAll(async (entry) => {
      if (entry.relativePath !== 'a') return;
      await rename(path.join(temp.workdir, 'b'), path.join(temp.workdir, 'b.away'));
      await symlink(temp.outside, path.join(temp.workdir, 'b'));
    });
    expect(seen).toEqual(['a:directory', 'b:directory', 'a/x.txt:file']);
  });

  it('does not read a walked file swapped for a symlink to outside', async () => {
    let content: string | undefined = 'not opened';
    await walkAll(async (entry) => {
      if (entry.relativePath !== 'a/x.txt') return;
      await unlink(path.join(temp.workdir, 'a/x.txt'));
      await symlink(path.join(temp.outside, 'secret.txt'), path.join(temp.workdir, 'a/x.txt'));
      const handle = await openWalkedFile(entry, root.realWorkdir);
      content = handle === undefined ? undefined : await handle.readFile('utf8');
      await handle?.close();
    });
    expect(content).toBeUndefined();
    expect(await readFile(path.join(temp.outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('reads a walked file through its directory even after the directory was renamed', async () => {
    let content: string | undefined;
    await walkAll(async (entry) => {
      if (entry.relativePath !== 'a/x.txt') return;
      await rename(path.join(temp.workdir, 'a'), path.join(temp.workdir, 'a-renamed'));
      await mkdir(path.join(temp.workdir, 'a'));
      const handle = await openWalkedFile(entry, root.realWorkdir);
      content = await handle?.readFile('utf8');
      await handle?.close();
    });
    expect(content).toBe('inside x\n');
  });

  it('does not open a walked file whose directory was moved out of the workdir', async () => {
    let handleFound = true;
    await walkAll(async (entry) => {
      if (entry.relativePath !== 'a/x.txt') return;
      await rename(path.join(temp.workdir, 'a'), path.join(temp.outside, 'a'));
      const handle = await openWalkedFile(entry, root.realWorkdir);
      handleFound = handle !== undefined;
      await handle?.close();
    });
    expect(handleFound).toBe(false);
  });

  it('stops at the walk depth limit', async () => {
    const deep = Array.from({ length: WORKDIR_TOOL_LIMITS.walkDepth + 2 }, () => 'd').join('/');
    await temp.write(`${deep}/bottom.txt`, 'x');
    const seen = await walkAll();
    const deepest = Math.max(...seen.map((line) => line.split(':')[0]?.split('/').length ?? 0));
    expect(deepest).toBe(WORKDIR_TOOL_LIMITS.walkDepth);
    expect(seen.some((line) => line.includes('bottom.txt'))).toBe(false);
    expect(root.realWorkdir).toBe(await realpath(temp.workdir));
  });
});
