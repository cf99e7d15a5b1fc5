import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolOutput } from '../troupe-tool.js';
import { realWorkdirOf, resolveInWorkdir, workdirRelativePath } from './resolve-in-workdir.js';
import { compareNames } from './walk-workdir.js';
import { workdirFsError } from './workdir-fs-error.js';
import { WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

const lsInputSchema = z
  .object({
    path: z
      .string()
      .optional()
      .describe('Directory to list, relative to the project workdir. Defaults to the workdir itself.'),
  })
  .strict();

export type LsInput = z.infer<typeof lsInputSchema>;

type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export const lsTool = defineTool<LsInput>({
  name: 'ls',
  description:
    'List a directory of the project workdir: each entry with its type (file, directory, symlink, other) and, ' +
    `for files, its size in bytes. Directory names end with "/". Sorted by name, at most ${WORKDIR_TOOL_LIMITS.lsEntries} entries. ` +
    'Symlinks are listed, not followed.',
  inputSchema: lsInputSchema,
  async execute(input, context) {
    const requested = input.path ?? '.';
    const resolved = await resolveInWorkdir(context.workdir, requested);
    const shownPath = workdirRelativePath(await realWorkdirOf(context.workdir), resolved);
    let stats: Stats;
    let dirents: Dirent[];
    try {
      stats = await lstat(resolved);
      if (!stats.isDirectory()) {
        return { path: shownPath, entries: [describeEntry(path.basename(resolved), stats)] };
      }
      dirents = await readdir(resolved, { withFileTypes: true });
    } catch (error) {
      throw workdirFsError(error, requested);
    }
    dirents.sort((left, right) => compareNames(left.name, right.name));
    const entries: ToolOutput[] = [];
    for (const dirent of dirents.slice(0, WORKDIR_TOOL_LIMITS.lsEntries)) {
      context.abortSignal.throwIfAborted();
      try {
        entries.push(describeEntry(dirent.name, await lstat(path.join(resolved, dirent.name))));
      } catch {
        // Removed between readdir and lstat: it is simply no longer there.
      }
    }
    const listing: Record<string, ToolOutput> = { path: shownPath, entries };
    if (dirents.length > WORKDIR_TOOL_LIMITS.lsEntries) {
      listing.truncated = true;
      listing.total_entries = dirents.length;
    }
    return listing;
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
