import type { FileHandle } from 'node:fs/promises';
import { TroupeError, toTroupeError } from '../../../core/errors.js';
import { openSkillsRoot } from '../../skills/project-skills.js';

/**
 * The descriptor of the workdir's real `.skills` directory, for the sandbox to mount read-only over its view
 * of it, opened through the workdir API (`openSkillsRoot`): made a real directory first, like skill
 * projection does (created when missing, a symlink or file in its place removed, never a link's target), so
 * every command gets a read-only `.skills` and no command can create or replace it (a mount point cannot be
 * renamed or removed from inside), while projection, on the host, still fills and repairs it.
 *
 * `workdir` must be a real path (no symlinks). The caller closes the handle.
 */
export async function openSkillsDirectory(workdir: string): Promise<FileHandle> {
  let skills;
  try {
    skills = await openSkillsRoot(workdir, true);
  } catch (error) {
    throw unusable(`.skills cannot be prepared: ${toTroupeError(error).message}`, error);
  }
  if (skills === undefined) throw unusable('.skills cannot be prepared');
  if (skills.realWorkdir !== workdir) {
    await skills.close();
    throw unusable('the workdir moved while the sandbox was prepared');
  }
  return skills.handle;
}

function unusable(reason: string, cause?: unknown): TroupeError {
  return new TroupeError('sandbox_failed', `the sandbox could not start: ${reason}`, { cause });
}
