import { lstat, readlink, type FileHandle } from 'node:fs/promises';
import { fsErrorCode } from './workdir-fs-error.js';
import { descriptorPath } from './workdir-root.js';

export type InspectedEntry = { kind: 'symlink'; target: string } | { kind: 'directory' | 'other' | 'gone' };

/**
 * What `name` in `directory` is after an open refused it: a symlink (with its target, read without following
 * it), a directory, something else, or nothing stable (gone, or changing kind under us). Only a hint for what to try next: every answer is re-checked
 * by the next no-follow open.
 */
export async function inspectAt(directory: FileHandle, name: string): Promise<InspectedEntry> {
  const entryPath = descriptorPath(directory, name);
  try {
    return { kind: 'symlink', target: await readlink(entryPath) };
  } catch (error) {
    const code = fsErrorCode(error);
    if (code === 'ENOENT') return { kind: 'gone' };
    if (code !== 'EINVAL') throw error;
  }
  try {
    const stats = await lstat(entryPath);
    // A symlink now, though not at the readlink just before: it is being swapped, so look again.
    if (stats.isSymbolicLink()) return { kind: 'gone' };
    return { kind: stats.isDirectory() ? 'directory' : 'other' };
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT') return { kind: 'gone' };
    throw error;
  }
}
