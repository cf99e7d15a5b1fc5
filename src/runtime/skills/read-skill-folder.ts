import { constants } from 'node:fs';
import { lstat, open, readdir, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { TroupeError } from '../../core/errors.js';
import type { RawSkillEntry } from '../../core/skills/build-skill-package.js';
import type { SkillLimits } from '../../core/skills/skill-limits.js';
import { UnpackBudget } from './archive/unpack-budget.js';

const NO_FOLLOW_READ = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

function invalid(message: string): TroupeError {
  return new TroupeError('skill_invalid', message);
}

function inside(base: string, target: string): boolean {
  const relative = path.relative(base, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Reads the files of a skill folder under `root` (a project workdir, or the folder the CLI was given).
 * Stricter than the workdir tools: a symlink anywhere, in the path or in the tree, refuses the whole skill,
 * as it would in an archive. Each file is opened without following links and the opened descriptor is
 * checked to still be under `root`, so a folder swapped for a link mid-read cannot pull in outside files.
 */
export async function readSkillFolder(
  root: string,
  requested: string,
  limits: SkillLimits,
): Promise<RawSkillEntry[]> {
  if (requested.includes('\0')) throw invalid('The folder path contains a NUL byte');
  const realRoot = await realpath(root).catch(() => {
    throw new TroupeError('file_not_found', 'The folder to install from does not exist');
  });
  const target = path.resolve(realRoot, requested);
  if (!inside(realRoot, target))
    throw new TroupeError('path_outside_workdir', `Path ${requested} is outside the workdir`);
  await refuseLinksOnTheWay(realRoot, target, requested);
  const stats = await lstat(target).catch(() => undefined);
  if (!stats) throw new TroupeError('file_not_found', `Folder not found: ${requested}`);
  if (!stats.isDirectory()) throw invalid(`${requested} is not a folder; a skill is a folder with SKILL.md`);
  const budget = new UnpackBudget(limits);
  const entries: RawSkillEntry[] = [];
  await walk(realRoot, target, '', entries, budget, limits);
  return entries;
}

async function refuseLinksOnTheWay(realRoot: string, target: string, requested: string): Promise<void> {
  let current = realRoot;
  for (const component of path.relative(realRoot, target).split(path.sep).filter(Boolean)) {
    current = path.join(current, component);
    const stats = await lstat(current).catch(() => undefined);
    if (!stats) throw new TroupeError('file_not_found', `Folder not found: ${requested}`);
    if (stats.isSymbolicLink())
      throw invalid(`${requested} goes through a symbolic link; links are not allowed in a skill`);
  }
}

async function walk(
  realRoot: string,
  directory: string,
  relative: string,
  entries: RawSkillEntry[],
  budget: UnpackBudget,
  limits: SkillLimits,
): Promise<void> {
  const depth = relative === '' ? 0 : relative.split('/').length;
  if (depth >= limits.maxDepth) throw invalid(`The skill is nested deeper than ${limits.maxDepth} levels`);
  const dirents = await readdir(directory, { withFileTypes: true });
  dirents.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  for (const dirent of dirents) {
    const entryPath = relative === '' ? dirent.name : `${relative}/${dirent.name}`;
    const absolute = path.join(directory, dirent.name);
    if (dirent.isSymbolicLink())
      throw invalid(`${entryPath} is a symbolic link; links are not allowed in a skill`);
    if (dirent.isDirectory()) {
      await walk(realRoot, absolute, entryPath, entries, budget, limits);
    } else if (dirent.isFile()) {
      budget.addFile();
      entries.push({ path: entryPath, content: await readFileInside(realRoot, absolute, entryPath, budget) });
    } else {
      throw invalid(`${entryPath} is not a regular file (devices, pipes and sockets are not allowed)`);
    }
  }
}

async function readFileInside(
  realRoot: string,
  absolute: string,
  entryPath: string,
  budget: UnpackBudget,
): Promise<Uint8Array> {
  const handle = await open(absolute, NO_FOLLOW_READ).catch((error: unknown) => {
    throw invalid(`${entryPath} cannot be read (${(error as { code?: string }).code ?? 'error'})`);
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw invalid(`${entryPath} is not a regular file`);
    await assertDescriptorInside(realRoot, handle.fd, absolute, entryPath);
    if (stats.size > budget.remainingBytes) budget.addBytes(stats.size);
    const content = await handle.readFile();
    budget.addBytes(content.byteLength);
    return new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  } finally {
    await handle.close();
  }
}

/** Linux names the file an open descriptor really is in /proc; elsewhere the path is re-resolved. */
async function assertDescriptorInside(
  realRoot: string,
  fd: number,
  absolute: string,
  entryPath: string,
): Promise<void> {
  const opened = await readlink(`/proc/self/fd/${fd}`).catch(() => realpath(absolute));
  if (!inside(realRoot, opened)) {
    throw new TroupeError(
      'path_outside_workdir',
      `${entryPath} changed while it was read and now leads outside the folder`,
    );
  }
}
