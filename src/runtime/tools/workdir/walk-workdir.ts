import { constants, type Dirent } from 'node:fs';
import { open, readdir, type FileHandle } from 'node:fs/promises';
import { compareCodeUnits } from '../../../core/compare-code-units.js';
import { relativeInside } from './resolve-in-workdir.js';
import { descriptorPath, descriptorRealPath } from './workdir-root.js';
import { WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

export type WalkEntryKind = 'file' | 'directory' | 'symlink' | 'other';

export interface WalkEntry {
  name: string;
  /** `/`-separated, relative to the walk's root. */
  relativePath: string;
  kind: WalkEntryKind;
  /**
   * The open directory the entry was listed from: open the entry through it (`openWalkedFile`), never by
   * path. Valid only until the walk is resumed.
   */
  directory: FileHandle;
}

export interface WalkWorkdirOptions {
  signal: AbortSignal;
  /** Real path of the workdir: every directory entered is checked to be in it, on its descriptor. */
  realWorkdir: string;
  /** Levels below the root to list; 1 lists the root's own entries only. Unlimited when absent. */
  maxDepth?: number;
  /** Directory names listed but never entered. */
  skipDirectoryNames?: ReadonlySet<string>;
}

const SUBDIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Lists a tree depth-first in name order by descriptor: each directory is listed through its own open
 * descriptor and each subdirectory opened relative to it with O_NOFOLLOW, then checked to be in the workdir,
 * so swapping a directory for a symlink (or moving it out) mid-walk cannot lead the walk outside. Symlinks are
 * reported as `symlink` and never entered. `root` is an open directory already checked by `openInWorkdir`; it
 * stays the caller's to close. Subdirectories that cannot be opened or are no longer inside are skipped: one
 * bad directory should not sink a search of the whole tree. Descriptors held at once are bounded by the depth,
 * itself capped by `WORKDIR_TOOL_LIMITS.walkDepth`.
 */
export async function* walkWorkdir(root: FileHandle, options: WalkWorkdirOptions): AsyncGenerator<WalkEntry> {
  const maxDepth = Math.min(options.maxDepth ?? Number.POSITIVE_INFINITY, WORKDIR_TOOL_LIMITS.walkDepth);
  yield* walkDirectory(root, '', 0, maxDepth, options);
}

async function* walkDirectory(
  directory: FileHandle,
  relativePath: string,
  depth: number,
  maxDepth: number,
  options: WalkWorkdirOptions,
): AsyncGenerator<WalkEntry> {
  options.signal.throwIfAborted();
  let dirents: Dirent[];
  try {
    dirents = await readdir(descriptorPath(directory), { withFileTypes: true });
  } catch (error) {
    if (depth === 0) throw error;
    return;
  }
  dirents.sort((left, right) => compareNames(left.name, right.name));
  const subdirectories: WalkEntry[] = [];
  for (const dirent of dirents) {
    const entry: WalkEntry = {
      name: dirent.name,
      relativePath: relativePath === '' ? dirent.name : `${relativePath}/${dirent.name}`,
      kind: kindOf(dirent),
      directory,
    };
    yield entry;
    const enter =
      entry.kind === 'directory' && depth + 1 < maxDepth && !options.skipDirectoryNames?.has(dirent.name);
    if (enter) subdirectories.push(entry);
  }
  for (const subdirectory of subdirectories) {
    const handle = await openInside(directory, subdirectory.name, SUBDIRECTORY_FLAGS, options.realWorkdir);
    if (handle === undefined) continue;
    try {
      yield* walkDirectory(handle, subdirectory.relativePath, depth + 1, maxDepth, options);
    } finally {
      await handle.close();
    }
  }
}

/**
 * Opens a walked file for reading through its directory's descriptor, refusing a symlink swapped in since
 * the listing and anything that is not a regular file inside the workdir; undefined when refused or gone.
 */
export async function openWalkedFile(entry: WalkEntry, realWorkdir: string): Promise<FileHandle | undefined> {
  const handle = await openInside(entry.directory, entry.name, FILE_FLAGS, realWorkdir);
  if (handle === undefined) return undefined;
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  return undefined;
}

async function openInside(
  directory: FileHandle,
  name: string,
  flags: number,
  realWorkdir: string,
): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(descriptorPath(directory, name), flags);
  } catch {
    return undefined;
  }
  try {
    if (relativeInside(realWorkdir, await descriptorRealPath(handle)) !== undefined) return handle;
  } catch {
    // Falls through to close: an unverifiable descriptor is not used.
  }
  await handle.close();
  return undefined;
}

/** Code-unit order: stable across locales, unlike localeCompare. */
export const compareNames = compareCodeUnits;

function kindOf(dirent: Dirent): WalkEntryKind {
  if (dirent.isSymbolicLink()) return 'symlink';
  if (dirent.isDirectory()) return 'directory';
  if (dirent.isFile()) return 'file';
  return 'other';
}
