import path from 'node:path';
import { DescriptorWalk } from './descriptor-walk.js';
import type { OpenedInWorkdir, OpenInWorkdirMode } from './opened-in-workdir.js';
import { resolveInWorkdir, splitComponents } from './resolve-in-workdir.js';
import { workdirFsError } from './workdir-fs-error.js';
import { escapesWorkdir, openWorkdirRoot } from './workdir-root.js';

/**
 * Opens a path of the workdir without ever trusting a path check. From the workdir's own descriptor, each
 * component is opened with O_NOFOLLOW relative to the descriptor of the directory before it, so no symlink is
 * ever followed by the kernel. A symlink met on the way is followed by hand, only into the workdir: its target
 * is read and walked the same way (`..` goes back to the directory descriptor it came from, an absolute target
 * must lie in the workdir). The final descriptor's real location is then checked to be in the workdir (a
 * directory could have been moved out meanwhile), and that descriptor is what the caller reads or writes.
 * Missing directories of a `write` are created one by one inside checked directory descriptors, the file with
 * O_CREAT|O_EXCL|O_NOFOLLOW. The caller must close `handle`.
 */
export async function openInWorkdir(
  workdir: string,
  requestedPath: string,
  mode: OpenInWorkdirMode,
): Promise<OpenedInWorkdir> {
  if (requestedPath.includes('\0')) {
    // Some C layers stop at NUL, so the path checked and the path opened could differ.
    throw escapesWorkdir(requestedPath, 'contains a NUL byte');
  }
  const root = await openWorkdirRoot(path.resolve(workdir));
  try {
    const relative = resolveInWorkdir(root.configuredPath, root.realPath, requestedPath);
    if (relative === undefined) throw escapesWorkdir(requestedPath);
    return await new DescriptorWalk(root, requestedPath, mode).open(splitComponents(relative));
  } catch (error) {
    throw workdirFsError(error, requestedPath);
  } finally {
    await root.handle.close();
  }
}
