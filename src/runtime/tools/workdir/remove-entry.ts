import { constants } from 'node:fs';
import { open, readdir, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { TroupeError } from '../../../core/errors.js';
import { relativeInside } from './resolve-in-workdir.js';
import { fsErrorCode } from './workdir-fs-error.js';
import { descriptorPath, descriptorRealPath } from './workdir-root.js';

const DIRECTORY_NO_FOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Directories held open at once while a tree is emptied; a deeper tree is refused rather than exhaust descriptors. */
const MAX_DEPTH = 128;
/** Each attempt only fails when another process changes the entry at that very moment. */
const MAX_ATTEMPTS = 10;

/**
 * Removes `name` from the directory open on `directory`, a whole tree included, without following a symlink
 * anywhere: a link is unlinked as itself, and a directory is emptied through its own descriptor (opened with
 * O_NOFOLLOW and checked to lie in `realWorkdir`) before it is removed. A path-based `rm -r` would list a
 * directory by path and could be led outside by a directory swapped for a link between its checks; nothing here
 * is looked up by path. Returns false when nothing was there.
 */
export async function removeEntry(
  directory: FileHandle,
  name: string,
  realWorkdir: string,
  depth = 0,
): Promise<boolean> {
  const entry = descriptorPath(directory, name);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    try {
      // unlink never follows a symlink at its last component: a link goes, its target stays.
      await unlink(entry);
      return true;
    } catch (error) {
      const code = fsErrorCode(error);
      if (code === 'ENOENT') return false;
      if (code !== 'EISDIR' && code !== 'EPERM') throw error;
    }
    if (depth >= MAX_DEPTH) {
      throw new TroupeError(
        'tool_input_invalid',
        `Cannot remove a tree nested deeper than ${MAX_DEPTH} levels`,
      );
    }
    const emptied = await emptyDirectory(entry, realWorkdir, depth);
    if (emptied === 'swapped') continue;
    try {
      await rmdir(entry);
      return true;
    } catch (error) {
      const code = fsErrorCode(error);
      if (code === 'ENOENT') return true;
      // Refilled, or swapped for a file or a link, meanwhile: look again.
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR') throw error;
    }
  }
  throw new TroupeError('tool_input_invalid', `${JSON.stringify(name)} kept changing while it was removed`);
}

async function emptyDirectory(
  entry: string,
  realWorkdir: string,
  depth: number,
): Promise<'emptied' | 'swapped'> {
  let handle: FileHandle;
  try {
    handle = await open(entry, DIRECTORY_NO_FOLLOW);
  } catch (error) {
    const code = fsErrorCode(error);
    // No longer a directory (a link or file swapped in) or gone: the caller's next unlink deals with it.
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') return 'swapped';
    throw error;
  }
  try {
    if (relativeInside(realWorkdir, await descriptorRealPath(handle)) === undefined) {
      throw new TroupeError('path_outside_workdir', 'A directory to remove moved out of the workdir');
    }
    for (const child of await readdir(descriptorPath(handle))) {
      await removeEntry(handle, child, realWorkdir, depth + 1);
    }
    return 'emptied';
  } finally {
    await handle.close();
  }
}
