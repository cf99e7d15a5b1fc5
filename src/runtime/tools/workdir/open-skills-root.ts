import type { WorkdirDirectory } from './workdir-directory.js';

/** Where skills appear in a workdir, relative to its root. */
export const SKILLS_DIR = '.skills';

/**
 * The workdir's `.skills`, made a real directory of the server's (0755, the sandbox only reads it): created
 * when missing (only with `create`), and a symlink or file in its place removed (the link itself, never its
 * target). Undefined when there is none and none is wanted. Skill projection fills what this opens, and the
 * sandbox mounts it read-only from the same kind of descriptor, so no command can change, create or replace
 * the skills other runs of the project read (a mount point cannot be renamed or removed from inside).
 */
export async function openSkillsRoot(
  workdir: WorkdirDirectory,
  create: boolean,
): Promise<WorkdirDirectory | undefined> {
  const found = await workdir.statEntry(SKILLS_DIR);
  if (!create && !found?.isDirectory()) {
    if (found !== undefined) await workdir.remove(SKILLS_DIR);
    return undefined;
  }
  return workdir.openDirectory(SKILLS_DIR, { create: true, reclaim: true, owner: 'server' });
}
