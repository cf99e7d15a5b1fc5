import { constants } from 'node:fs';
import { mkdir, open, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { TroupeError } from '../../../core/errors.js';
import { SKILLS_DIR } from '../../skills/project-skills.js';
import { fsErrorCode } from '../workdir/workdir-fs-error.js';
import { descriptorPath, descriptorRealPath, openWorkdirRoot } from '../workdir/workdir-root.js';

const DIRECTORY_NO_FOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Each attempt only fails when something else changes `.skills` under us at that very moment. */
const MAX_ATTEMPTS = 10;

/**
 * The descriptor of the workdir's real `.skills` directory, for the sandbox to mount read-only over its view
 * of it. Opened from the workdir's own descriptor with O_NOFOLLOW and checked through /proc/self/fd, so a
 * symlink planted there is never followed: its host target is never opened, let alone mounted.
 *
 * `.skills` is made a real directory first, from the host side, like skill projection does: created when
 * missing (empty), and a symlink or file in its place removed (the link itself, never its target). So every
 * command gets a read-only `.skills` and no command can create or replace it (a mount point cannot be
 * renamed or removed from inside), while projection, on the host, still fills and repairs it.
 *
 * `workdir` must be a real path (no symlinks). The caller closes the handle.
 */
export async function openSkillsDirectory(workdir: string): Promise<FileHandle> {
  const root = await openWorkdirRoot(workdir);
  try {
    if (root.realPath !== workdir) throw unusable('the workdir moved while the sandbox was prepared');
    const entry = descriptorPath(root.handle, SKILLS_DIR);
    const expected = path.join(root.realPath, SKILLS_DIR);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      let handle: FileHandle;
      try {
        handle = await open(entry, DIRECTORY_NO_FOLLOW);
      } catch (error) {
        await makeRealDirectory(entry, error);
        continue;
      }
      try {
        if ((await descriptorRealPath(handle)) === expected) return handle;
      } catch (error) {
        await handle.close();
        throw error;
      }
      // Renamed between the open and the check: open what is at `.skills` now.
      await handle.close();
    }
    throw unusable(`${SKILLS_DIR} kept changing`);
  } finally {
    await root.handle.close();
  }
}

/** After `open` refused `entry`: create it when missing, remove a symlink or file in its way. */
async function makeRealDirectory(entry: string, openError: unknown): Promise<void> {
  const code = fsErrorCode(openError);
  try {
    // mkdir and unlink never follow a symlink at the last component.
    if (code === 'ENOENT') await mkdir(entry, 0o755);
    else if (code === 'ELOOP' || code === 'ENOTDIR') await unlink(entry);
    else throw openError;
  } catch (error) {
    // Someone else created, removed or replaced it meanwhile: the next attempt looks again.
    const raced = ['EEXIST', 'ENOENT', 'EISDIR'].includes(fsErrorCode(error) ?? '');
    if (error === openError || !raced) {
      throw unusable(`${SKILLS_DIR} cannot be prepared (${fsErrorCode(error) ?? 'error'})`, error);
    }
  }
}

function unusable(reason: string, cause?: unknown): TroupeError {
  return new TroupeError('sandbox_failed', `the sandbox could not start: ${reason}`, { cause });
}
