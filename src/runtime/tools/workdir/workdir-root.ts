import { constants } from 'node:fs';
import { open, readlink, type FileHandle } from 'node:fs/promises';
import { TroupeError } from '../../../core/errors.js';
import { relativeInside } from './resolve-in-workdir.js';
import { displayPath, fsErrorCode } from './workdir-fs-error.js';
import { workdirOwnerOf, type WorkdirOwner } from './workdir-owner.js';

/**
 * Node has no `openat`. On Linux, `/proc/self/fd/N` is a link to whatever descriptor N has open, and a path
 * below it is looked up inside that very directory, wherever it has moved since and whatever now sits at the
 * path it was opened by. So `/proc/self/fd/N/name` opened with O_NOFOLLOW is `openat(N, name, O_NOFOLLOW)`,
 * and `readlink('/proc/self/fd/N')` tells where descriptor N really is right now.
 */
const PROC_FD = '/proc/self/fd';

/** The project workdir, opened once per tool call: every other descriptor is reached from this one. */
export interface WorkdirRoot {
  handle: FileHandle;
  /** The real path of the opened workdir, read back from its descriptor. */
  realPath: string;
  /** The workdir as configured (absolute), which a model may echo in absolute paths. */
  configuredPath: string;
  /** Who gets the directories and tool-written files the server creates here (`workdirOwnerOf`). */
  owner: WorkdirOwner | undefined;
}

export async function openWorkdirRoot(configuredPath: string): Promise<WorkdirRoot> {
  let handle: FileHandle;
  try {
    handle = await open(configuredPath, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
    throw new TroupeError(
      'internal',
      `The project workdir is not accessible (${fsErrorCode(error) ?? 'error'})`,
      { cause: error },
    );
  }
  try {
    const realPath = await descriptorRealPath(handle);
    return { handle, realPath, configuredPath, owner: workdirOwnerOf(await handle.stat()) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The path through which the kernel reaches `name` inside the directory open on `directory` (or it itself). */
export function descriptorPath(directory: FileHandle, name?: string): string {
  return name === undefined ? `${PROC_FD}/${directory.fd}` : `${PROC_FD}/${directory.fd}/${name}`;
}

/** Where the open file or directory is now. */
export async function descriptorRealPath(handle: FileHandle): Promise<string> {
  try {
    return await readlink(descriptorPath(handle));
  } catch (error) {
    // Without /proc there is no way to check a descriptor: refuse rather than fall back to racy path checks.
    throw new TroupeError(
      'internal',
      `The workdir tools need Linux /proc/self/fd to check opened files (${fsErrorCode(error) ?? 'error'})`,
      { cause: error },
    );
  }
}

/**
 * The check every read, listing and creation rests on: the descriptor itself, not a path looked at earlier,
 * is inside the workdir. Returns its real path.
 */
export async function assertDescriptorInside(
  root: WorkdirRoot,
  handle: FileHandle,
  requestedPath: string,
): Promise<string> {
  const realPath = await descriptorRealPath(handle);
  if (relativeInside(root.realPath, realPath) === undefined) throw escapesWorkdir(requestedPath);
  return realPath;
}

export function escapesWorkdir(requestedPath: string, reason = 'escapes the workdir'): TroupeError {
  return new TroupeError('path_outside_workdir', `Path ${displayPath(requestedPath)} ${reason}`);
}
