import { constants, type Stats } from 'node:fs';
import { mkdir, open, realpath, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { TroupeError } from '../../../core/errors.js';
import { realWorkdirOf, relativeInside, resolveInWorkdir } from './resolve-in-workdir.js';
import { displayPath, fsErrorCode, workdirFsError } from './workdir-fs-error.js';

/**
 * `read` and `edit` need an existing regular file; `write` creates it (and its missing parent directories).
 * None truncates: a writer truncates only once the opened file has been checked.
 */
export type OpenInWorkdirMode = 'read' | 'edit' | 'write';

export interface OpenedWorkdirFile {
  handle: FileHandle;
  /** Stats of the opened descriptor, not of the path: they describe the file actually opened. */
  stats: Stats;
  /** The file did not exist and was created by this open (`write` only). */
  created: boolean;
}

// Windows has no O_NOFOLLOW; there the post-open identity check below is the only guard. O_NONBLOCK keeps a
// named pipe planted in the workdir from hanging the open; it changes nothing for regular files.
const SAFE_OPEN_FLAGS = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** For files found by a walk (never through a symlink): read-only, and refusing a symlink swapped in since. */
export const READ_NO_FOLLOW_FLAGS = constants.O_RDONLY | SAFE_OPEN_FLAGS;

/**
 * Opens a regular file inside the workdir, closing the gap between `resolveInWorkdir`'s check and the open:
 * the final component is opened with O_NOFOLLOW (a symlink swapped in meanwhile fails with ELOOP), and the
 * descriptor is then matched (device + inode) against a fresh resolution of the path, which catches a parent
 * directory swapped for a symlink. The caller must close `handle`.
 */
export async function openInWorkdir(
  workdir: string,
  requestedPath: string,
  mode: OpenInWorkdirMode,
): Promise<OpenedWorkdirFile> {
  const forWrite = mode === 'write';
  const resolved = await resolveInWorkdir(workdir, requestedPath, { forWrite });
  const { handle, created } = await openNoFollow(resolved, requestedPath, mode);
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) {
      throw new TroupeError('tool_input_invalid', `${displayPath(requestedPath)} is a directory, not a file`);
    }
    if (!stats.isFile()) {
      throw new TroupeError('tool_input_invalid', `${displayPath(requestedPath)} is not a regular file`);
    }
    await assertStillInside(workdir, resolved, stats, requestedPath);
    return { handle, stats, created };
  } catch (error) {
    await handle.close();
    throw workdirFsError(error, requestedPath);
  }
}

async function openNoFollow(
  resolved: string,
  requestedPath: string,
  mode: OpenInWorkdirMode,
): Promise<{ handle: FileHandle; created: boolean }> {
  try {
    if (mode === 'read') return { handle: await open(resolved, READ_NO_FOLLOW_FLAGS), created: false };
    if (mode === 'edit')
      return { handle: await open(resolved, constants.O_RDWR | SAFE_OPEN_FLAGS), created: false };
    await mkdir(path.dirname(resolved), { recursive: true });
    try {
      // O_EXCL also refuses any symlink at the final component, dangling or not.
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | SAFE_OPEN_FLAGS;
      return { handle: await open(resolved, flags, 0o666), created: true };
    } catch (error) {
      if (fsErrorCode(error) !== 'EEXIST') throw error;
      return { handle: await open(resolved, constants.O_WRONLY | SAFE_OPEN_FLAGS), created: false };
    }
  } catch (error) {
    throw workdirFsError(error, requestedPath);
  }
}

async function assertStillInside(
  workdir: string,
  resolved: string,
  opened: Stats,
  requestedPath: string,
): Promise<void> {
  const realWorkdir = await realWorkdirOf(workdir);
  const current = await realpath(resolved);
  const currentStats = await stat(current);
  const inside = relativeInside(realWorkdir, current) !== undefined;
  if (!inside || currentStats.dev !== opened.dev || currentStats.ino !== opened.ino) {
    throw new TroupeError(
      'path_outside_workdir',
      `Path ${displayPath(requestedPath)} changed while it was being opened and now leads outside the workdir`,
    );
  }
}
