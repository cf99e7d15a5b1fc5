import path from 'node:path';
import { TroupeError, isTroupeError } from '../../core/errors.js';
import type { RawSkillEntry } from '../../core/skills/build-skill-package.js';
import type { SkillLimits } from '../../core/skills/skill-limits.js';
import { resolveInWorkdir, splitComponents } from '../tools/workdir/resolve-in-workdir.js';
import { openWorkdirDirectory } from '../tools/workdir/open-workdir-directory.js';
import type { WorkdirDirectory } from '../tools/workdir/workdir-directory.js';
import { UnpackBudget } from './archive/unpack-budget.js';

function invalid(message: string): TroupeError {
  return new TroupeError('skill_invalid', message);
}

/**
 * Reads the files of a skill folder under `root` (a project workdir, or the folder the CLI was given), through
 * the workdir API: every folder is opened from its parent's descriptor without following a link, every file
 * read from its folder's descriptor. Stricter than the workdir tools: a symlink anywhere, in the path or in
 * the tree, refuses the whole skill, as it would in an archive.
 */
export async function readSkillFolder(
  root: string,
  requested: string,
  limits: SkillLimits,
): Promise<RawSkillEntry[]> {
  if (requested.includes('\0')) throw invalid('The folder path contains a NUL byte');
  const top = await openWorkdirDirectory(root, '.').catch(() => {
    throw new TroupeError('file_not_found', 'The folder to install from does not exist');
  });
  const opened: WorkdirDirectory[] = [top];
  try {
    const relative = resolveInWorkdir(path.resolve(root), top.realWorkdir, requested);
    if (relative === undefined) {
      throw new TroupeError('path_outside_workdir', `Path ${requested} is outside the workdir`);
    }
    let folder = top;
    for (const component of splitComponents(relative)) {
      folder = await descend(folder, component, requested);
      opened.push(folder);
    }
    const budget = new UnpackBudget(limits);
    const entries: RawSkillEntry[] = [];
    await walk(folder, '', entries, budget, limits);
    return entries;
  } finally {
    await Promise.all(opened.map((directory) => directory.close()));
  }
}

/** The folder `name` below `parent`; a link, a file or nothing there refuses the read with its reason. */
async function descend(parent: WorkdirDirectory, name: string, requested: string): Promise<WorkdirDirectory> {
  const found = await parent.statEntry(name);
  if (found === undefined) throw new TroupeError('file_not_found', `Folder not found: ${requested}`);
  if (found.isSymbolicLink()) {
    throw invalid(`${requested} goes through a symbolic link; links are not allowed in a skill`);
  }
  if (!found.isDirectory()) throw invalid(`${requested} is not a folder; a skill is a folder with SKILL.md`);
  try {
    return await parent.openDirectory(name);
  } catch (error) {
    // Swapped for a link or a file since the look above.
    if (isTroupeError(error, 'path_outside_workdir') || isTroupeError(error, 'tool_input_invalid')) {
      throw invalid(`${requested} changed while it was read; links are not allowed in a skill`);
    }
    throw error;
  }
}

async function walk(
  directory: WorkdirDirectory,
  relative: string,
  entries: RawSkillEntry[],
  budget: UnpackBudget,
  limits: SkillLimits,
): Promise<void> {
  const depth = relative === '' ? 0 : relative.split('/').length;
  if (depth >= limits.maxDepth) throw invalid(`The skill is nested deeper than ${limits.maxDepth} levels`);
  const dirents = await directory.list();
  dirents.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  for (const dirent of dirents) {
    const entryPath = relative === '' ? dirent.name : `${relative}/${dirent.name}`;
    if (dirent.isSymbolicLink())
      throw invalid(`${entryPath} is a symbolic link; links are not allowed in a skill`);
    if (dirent.isDirectory()) {
      const child = await descend(directory, dirent.name, entryPath);
      try {
        await walk(child, entryPath, entries, budget, limits);
      } finally {
        await child.close();
      }
    } else if (dirent.isFile()) {
      budget.addFile();
      entries.push({ path: entryPath, content: await readInside(directory, dirent.name, entryPath, budget) });
    } else {
      throw invalid(`${entryPath} is not a regular file (devices, pipes and sockets are not allowed)`);
    }
  }
}

async function readInside(
  directory: WorkdirDirectory,
  name: string,
  entryPath: string,
  budget: UnpackBudget,
): Promise<Uint8Array> {
  let content: Buffer | undefined;
  try {
    content = await directory.readFile(name, budget.remainingBytes);
  } catch (error) {
    // Swapped for a link, or something other than a file, since the listing.
    if (isTroupeError(error, 'path_outside_workdir') || isTroupeError(error, 'tool_input_invalid')) {
      throw invalid(`${entryPath} is not a regular file`);
    }
    throw invalid(`${entryPath} cannot be read (${isTroupeError(error) ? error.message : 'error'})`);
  }
  // More than the room left: counting one byte past it makes the budget say so.
  const bytes = content?.byteLength ?? budget.remainingBytes + 1;
  budget.addBytes(bytes);
  if (content === undefined) throw invalid(`${entryPath} cannot be read`);
  return new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
}
