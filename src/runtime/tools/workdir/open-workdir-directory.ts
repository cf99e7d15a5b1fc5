import path from 'node:path';
import { openInWorkdir } from './open-in-workdir.js';
import { splitComponents } from './resolve-in-workdir.js';
import { WorkdirDirectory, type OpenDirectoryOptions } from './workdir-directory.js';
import { workdirFsError } from './workdir-fs-error.js';
import { openWorkdirRoot } from './workdir-root.js';

/**
 * Opens a directory of the workdir for the server's own reads and writes in it. Without `reclaim` the path is
 * resolved like the file tools resolve it (`openInWorkdir`: in-workdir symlinks followed by hand, none leading
 * out); with `reclaim` no symlink is followed at all. The caller closes the result.
 */
export async function openWorkdirDirectory(
  workdir: string,
  relativePath: string,
  options: OpenDirectoryOptions = {},
): Promise<WorkdirDirectory> {
  if (!options.reclaim) {
    const opened = await openInWorkdir(workdir, relativePath, options.create ? 'mkdir' : 'directory');
    return new WorkdirDirectory(opened.handle, opened.realWorkdir, opened.owner, opened.shownPath);
  }
  const root = await openWorkdirRoot(path.resolve(workdir));
  let current = new WorkdirDirectory(root.handle, root.realPath, root.owner, '.');
  try {
    for (const name of splitComponents(relativePath)) {
      const next = await current.openDirectory(name, options);
      await current.close();
      current = next;
    }
    return current;
  } catch (error) {
    await current.close();
    throw workdirFsError(error, relativePath);
  }
}
