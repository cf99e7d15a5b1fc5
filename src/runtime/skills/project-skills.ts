import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { isTroupeError, toTroupeError } from '../../core/errors.js';
import type { SkillFile } from '../../core/records/skill.js';
import { skillDigest } from '../../core/skills/build-skill-package.js';
import { fsErrorCode } from '../tools/workdir/workdir-fs-error.js';
import { openWorkdirDirectory } from '../tools/workdir/open-workdir-directory.js';
import type { WorkdirDirectory } from '../tools/workdir/workdir-directory.js';
import { openSkillsRoot } from '../tools/workdir/open-skills-root.js';

/** A skill to project: its name and digest now, its files only when the copy on disk is stale. */
export interface ProjectedSkill {
  name: string;
  digest: string;
  loadFiles(): Promise<SkillFile[]>;
}

export interface ProjectSkillsInput {
  workdir: string;
  skills: readonly ProjectedSkill[];
  /**
   * Decides which other folders under `.skills/` may stay (those of skills the run's user may still use,
   * projected by a parent or sibling run): every other one is removed. Called only when there are others.
   */
  stillVisible(names: string[]): Promise<ReadonlySet<string>>;
}

/** A skill that could not be projected, and why (workdir-relative: never a host path). */
export interface UnprojectedSkill {
  name: string;
  reason: string;
}

/** A projected copy larger than this is stale by definition: skills are far smaller (`SkillLimits`). */
const MAX_PROJECTED_FILE_BYTES = 64 * 1024 * 1024;

// One projection per workdir at a time in this process; other processes are handled by rename's atomicity.
const queues = new Map<string, Promise<UnprojectedSkill[]>>();

/**
 * Projects skills read-only into `{workdir}/.skills/{name}/` (docs/skills-and-knowledge.md). A skill whose copy already has the
 * right digest is left alone, so parent and children of one run tree share one copy; a stale, tampered or
 * half-written copy is rebuilt in a staging folder and swapped in with a rename, so a reader never sees a
 * mix of two versions. Everything goes through the workdir API (no symlink followed, every entry reached from
 * a checked directory descriptor) and stays the server's: files 0444, so the sandbox only reads them. A skill
 * that cannot be projected is left out and returned, with why; the others are projected all the same.
 */
export async function projectSkills(input: ProjectSkillsInput): Promise<UnprojectedSkill[]> {
  const key = path.resolve(input.workdir);
  const previous = queues.get(key) ?? Promise.resolve([]);
  const current = previous.catch(() => []).then(() => project(input));
  queues.set(key, current);
  try {
    return await current;
  } finally {
    if (queues.get(key) === current) queues.delete(key);
  }
}

async function project(input: ProjectSkillsInput): Promise<UnprojectedSkill[]> {
  const workdir = await openWorkdirDirectory(input.workdir, '.');
  const root = await openSkillsRoot(workdir, input.skills.length > 0).finally(() => workdir.close());
  if (root === undefined) return [];
  try {
    await prune(root, input);
    const unprojected: UnprojectedSkill[] = [];
    for (const skill of input.skills) {
      try {
        await projectOne(root, skill);
      } catch (error) {
        unprojected.push({ name: skill.name, reason: reasonOf(error) });
      }
    }
    return unprojected;
  } finally {
    await root.close();
  }
}

async function prune(root: WorkdirDirectory, input: ProjectSkillsInput): Promise<void> {
  const wanted = new Set(input.skills.map((skill) => skill.name));
  const entries = await root.list();
  // Leftovers of an interrupted swap are ours to remove.
  const leftovers = entries.filter((entry) => entry.name.startsWith('.trash-'));
  const others = entries.filter((entry) => !entry.name.startsWith('.') && !wanted.has(entry.name));
  const keep =
    others.length > 0 ? await input.stillVisible(others.map((entry) => entry.name)) : new Set<string>();
  const doomed = [...leftovers, ...others.filter((entry) => !keep.has(entry.name) || !entry.isDirectory())];
  await Promise.all(doomed.map((entry) => root.remove(entry.name)));
}

async function projectOne(root: WorkdirDirectory, skill: ProjectedSkill): Promise<void> {
  if ((await digestOnDisk(root, skill.name)) === skill.digest) return;
  const files = await skill.loadFiles();
  // Deleted between the listing and now: nothing to project.
  if (files.length === 0) return;
  const stagingName = `.staging-${randomBytes(6).toString('hex')}`;
  const staging = await root.makeDirectory(stagingName, { owner: 'server' });
  try {
    for (const file of files) await writeSkillFile(staging, file);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        await root.rename(stagingName, skill.name);
        return;
      } catch (error) {
        const code = fsErrorCode(error);
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR') throw error;
        // Another process just projected it: keep theirs when it is the same version.
        if ((await digestOnDisk(root, skill.name)) === skill.digest) return;
        const trash = `.trash-${randomBytes(6).toString('hex')}`;
        await root.rename(skill.name, trash).catch(() => undefined);
        await root.remove(trash);
      }
    }
    throw new Error('its folder kept changing');
  } finally {
    await staging.close();
    await root.remove(stagingName).catch(() => undefined);
  }
}

/** Writes one file of a skill below `staging`, its folders made one by one through their descriptors. */
async function writeSkillFile(staging: WorkdirDirectory, file: SkillFile): Promise<void> {
  const components = file.path.split('/');
  const name = components.pop() ?? file.path;
  const opened: WorkdirDirectory[] = [];
  try {
    let directory = staging;
    for (const component of components) {
      directory = await directory.openDirectory(component, { create: true, owner: 'server' });
      opened.push(directory);
    }
    if (!(await directory.createFile(name, file.content, 0o444))) {
      throw new Error(`${file.path} is there twice`);
    }
  } finally {
    await Promise.all(opened.map((directory) => directory.close()));
  }
}

/** The digest of what is on disk, or undefined when it is missing or holds anything but plain files. */
async function digestOnDisk(root: WorkdirDirectory, name: string): Promise<string | undefined> {
  const files: SkillFile[] = [];
  const walk = async (directory: WorkdirDirectory, relative: string): Promise<boolean> => {
    for (const entry of await directory.list()) {
      const entryPath = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        const child = await directory.openDirectory(entry.name);
        try {
          if (!(await walk(child, entryPath))) return false;
        } finally {
          await child.close();
        }
      } else if (entry.isFile()) {
        const content = await directory.readFile(entry.name, MAX_PROJECTED_FILE_BYTES);
        if (content === undefined) return false;
        files.push({ path: entryPath, content });
      } else {
        return false;
      }
    }
    return true;
  };
  try {
    if (!(await root.statEntry(name))?.isDirectory()) return undefined;
    const folder = await root.openDirectory(name);
    try {
      if (!(await walk(folder, ''))) return undefined;
    } finally {
      await folder.close();
    }
  } catch {
    return undefined;
  }
  files.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  return skillDigest(files);
}

/** A TroupeError's message names workdir-relative paths; anything else is shown by its code alone. */
function reasonOf(error: unknown): string {
  if (isTroupeError(error)) return error.message;
  const code = fsErrorCode(error);
  if (code !== undefined) return `the file system refused it (${code})`;
  return toTroupeError(error).message;
}
