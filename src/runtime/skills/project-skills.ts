import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SkillFile } from '../../core/records/skill.js';
import { skillDigest } from '../../core/skills/build-skill-package.js';

/** Where skills appear in a workdir, relative to its root. */
export const SKILLS_DIR = '.skills';

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

// One projection per workdir at a time in this process; other processes are handled by rename's atomicity.
const queues = new Map<string, Promise<void>>();

/**
 * Projects skills read-only into `{workdir}/.skills/{name}/` (SPEC §9). A skill whose copy already has the
 * right digest is left alone, so parent and children of one run tree share one copy; a stale, tampered or
 * half-written copy is rebuilt in a staging folder and swapped in with a rename, so a reader never sees a
 * mix of two versions. Files are written mode 0444; the workdir tools refuse writes there in any case.
 */
export async function projectSkills(input: ProjectSkillsInput): Promise<void> {
  const realWorkdir = await realpath(input.workdir);
  const previous = queues.get(realWorkdir) ?? Promise.resolve();
  const current = previous.catch(() => undefined).then(() => project(realWorkdir, input));
  queues.set(realWorkdir, current);
  try {
    await current;
  } finally {
    if (queues.get(realWorkdir) === current) queues.delete(realWorkdir);
  }
}

async function project(realWorkdir: string, input: ProjectSkillsInput): Promise<void> {
  const root = path.join(realWorkdir, SKILLS_DIR);
  const exists = await ensureRealDirectory(root, input.skills.length > 0);
  if (!exists) return;
  await prune(root, input);
  for (const skill of input.skills) await projectOne(root, skill);
}

/** `.skills` must be a real directory of this workdir: a symlink or file planted there is removed first. */
async function ensureRealDirectory(root: string, create: boolean): Promise<boolean> {
  const stats = await lstat(root).catch(() => undefined);
  if (stats?.isDirectory()) return true;
  if (stats) await rm(root, { recursive: true, force: true });
  if (!create) return false;
  await mkdir(root, { recursive: true });
  const created = await lstat(root);
  return created.isDirectory();
}

async function prune(root: string, input: ProjectSkillsInput): Promise<void> {
  const wanted = new Set(input.skills.map((skill) => skill.name));
  const entries = await readdir(root, { withFileTypes: true });
  // Leftovers of an interrupted swap are ours to remove.
  const leftovers = entries.filter((entry) => entry.name.startsWith('.trash-'));
  const others = entries.filter((entry) => !entry.name.startsWith('.') && !wanted.has(entry.name));
  const keep =
    others.length > 0 ? await input.stillVisible(others.map((entry) => entry.name)) : new Set<string>();
  const doomed: Dirent[] = [
    ...leftovers,
    ...others.filter((entry) => !keep.has(entry.name) || !entry.isDirectory()),
  ];
  await Promise.all(doomed.map((entry) => rm(path.join(root, entry.name), { recursive: true, force: true })));
}

async function projectOne(root: string, skill: ProjectedSkill): Promise<void> {
  const target = path.join(root, skill.name);
  if ((await digestOnDisk(target)) === skill.digest) return;
  const files = await skill.loadFiles();
  // Deleted between the listing and now: nothing to project.
  if (files.length === 0) return;
  const staging = await mkdtemp(path.join(root, '.staging-'));
  try {
    for (const file of files) {
      const destination = path.join(staging, ...file.path.split('/'));
      await mkdir(path.dirname(destination), { recursive: true });
      await writeFile(destination, file.content, { flag: 'wx', mode: 0o444 });
    }
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        await rename(staging, target);
        return;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR') throw error;
        // Another process just projected it: keep theirs when it is the same version.
        if ((await digestOnDisk(target)) === skill.digest) return;
        const trash = path.join(root, `.trash-${randomBytes(6).toString('hex')}`);
        await rename(target, trash).catch(() => undefined);
        await rm(trash, { recursive: true, force: true });
      }
    }
    throw new Error(`Could not project skill ${skill.name}: its folder kept changing`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** The digest of what is on disk, or undefined when it is missing or holds anything but plain files. */
async function digestOnDisk(folder: string): Promise<string | undefined> {
  const files: SkillFile[] = [];
  const walk = async (directory: string, relative: string): Promise<boolean> => {
    const entries = await readdir(directory, { withFileTypes: true });
    for (const entry of entries) {
      const entryPath = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const absolute = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!(await walk(absolute, entryPath))) return false;
      } else if (entry.isFile()) {
        files.push({ path: entryPath, content: await readFile(absolute) });
      } else {
        return false;
      }
    }
    return true;
  };
  try {
    const stats = await lstat(folder);
    if (!stats.isDirectory() || !(await walk(folder, ''))) return undefined;
  } catch {
    return undefined;
  }
  files.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  return skillDigest(files);
}
