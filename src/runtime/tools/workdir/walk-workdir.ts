import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

export type WalkEntryKind = 'file' | 'directory' | 'symlink' | 'other';

export interface WalkEntry {
  absolutePath: string;
  /** `/`-separated, relative to the walk's root. */
  relativePath: string;
  kind: WalkEntryKind;
}

interface PendingDirectory {
  absolutePath: string;
  relativePath: string;
  depth: number;
}

export interface WalkWorkdirOptions {
  signal: AbortSignal;
  /** Levels below the root to list; 1 lists the root's own entries only. Unlimited when absent. */
  maxDepth?: number;
  /** Directory names listed but never entered. */
  skipDirectoryNames?: ReadonlySet<string>;
}

/**
 * Lists a tree depth-first in name order. Symlinks are reported as `symlink` and never entered, so a walk
 * that starts inside the workdir stays inside it whatever the links point at. `root` must already be a real
 * path checked by `resolveInWorkdir`. Unreadable subdirectories are skipped: one bad directory should not sink
 * a search of the whole tree.
 */
export async function* walkWorkdir(root: string, options: WalkWorkdirOptions): AsyncGenerator<WalkEntry> {
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const pending: PendingDirectory[] = [{ absolutePath: root, relativePath: '', depth: 0 }];
  for (let directory = pending.pop(); directory !== undefined; directory = pending.pop()) {
    options.signal.throwIfAborted();
    let dirents: Dirent[];
    try {
      dirents = await readdir(directory.absolutePath, { withFileTypes: true });
    } catch (error) {
      if (directory.depth === 0) throw error;
      continue;
    }
    dirents.sort((left, right) => compareNames(left.name, right.name));
    const subdirectories: PendingDirectory[] = [];
    for (const dirent of dirents) {
      const entry: WalkEntry = {
        absolutePath: path.join(directory.absolutePath, dirent.name),
        relativePath:
          directory.relativePath === '' ? dirent.name : `${directory.relativePath}/${dirent.name}`,
        kind: kindOf(dirent),
      };
      yield entry;
      const enter =
        entry.kind === 'directory' &&
        directory.depth + 1 < maxDepth &&
        !options.skipDirectoryNames?.has(dirent.name);
      if (enter) subdirectories.push({ ...entry, depth: directory.depth + 1 });
    }
    // Reversed onto the stack so subdirectories are visited in name order.
    pending.push(...subdirectories.reverse());
  }
}

/** Code-unit order: stable across locales, unlike localeCompare. */
export function compareNames(left: string, right: string): number {
  if (left === right) return 0;
  return left < right ? -1 : 1;
}

function kindOf(dirent: Dirent): WalkEntryKind {
  if (dirent.isSymbolicLink()) return 'symlink';
  if (dirent.isDirectory()) return 'directory';
  if (dirent.isFile()) return 'file';
  return 'other';
}
