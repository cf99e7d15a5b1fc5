import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolOutput } from '../../../core/tools/troupe-tool.js';
import { openInWorkdir } from './open-in-workdir.js';
import { compareNames } from './walk-workdir.js';
import { workdirFsError } from './workdir-fs-error.js';
import { descriptorPath } from './workdir-root.js';
import { WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

const lsInputSchema = z
  .object({
    path: z.string().optional().describe('Relative to the project workdir (default: its root).'),
  })
  .strict();

export type LsInput = z.infer<typeof lsInputSchema>;

type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export const lsTool = defineTool<LsInput>({
  name: 'ls',
  effect: 'read_only',
  description:
    'List a directory of the project workdir: each entry with its type and, for files, size in bytes; ' +
    `directories end with "/". Sorted, at most ${WORKDIR_TOOL_LIMITS.lsEntries} entries; symlinks not followed.`,
  inputSchema: lsInputSchema,
  async execute(input, context) {
    const requested = input.path ?? '.';
    const opened = await openInWorkdir(context.workdir, requested, 'any');
    try {
      if (!opened.stats.isDirectory()) {
        return {
          path: opened.shownPath,
          entries: [describeEntry(path.basename(opened.realPath), opened.stats)],
        };
      }
      let dirents: Dirent[];
      try {
        // Listed through the checked descriptor, so the names are those of the directory that was checked.
        dirents = await readdir(descriptorPath(opened.handle), { withFileTypes: true });
      } catch (error) {
        throw workdirFsError(error, requested);
      }
      dirents.sort((left, right) => compareNames(left.name, right.name));
      const entries: ToolOutput[] = [];
      for (const dirent of dirents.slice(0, WORKDIR_TOOL_LIMITS.lsEntries)) {
        context.abortSignal.throwIfAborted();
        try {
          // lstat through the descriptor: a symlink is described, never followed.
          entries.push(describeEntry(dirent.name, await lstat(descriptorPath(opened.handle, dirent.name))));
        } catch {
          // Removed between readdir and lstat: it is simply no longer there.
        }
      }
      const listing: Record<string, ToolOutput> = { path: opened.shownPath, entries };
      if (dirents.length > WORKDIR_TOOL_LIMITS.lsEntries) {
        listing.truncated = true;
        listing.total_entries = dirents.length;
      }
      return listing;
    } finally {
      await opened.handle.close();
    }
  },
});

function describeEntry(name: string, stats: Stats): Record<string, ToolOutput> {
  const type = entryType(stats);
  if (type === 'directory') return { name: `${name}/`, type };
  if (type === 'file') return { name, type, size: stats.size };
  return { name, type };
}

function entryType(stats: Stats): EntryType {
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isDirectory()) return 'directory';
  if (stats.isFile()) return 'file';
  return 'other';
}
