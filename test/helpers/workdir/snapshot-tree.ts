import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * Every entry under `root` (not following symlinks) with what would show a change to it: a file's SHA-256,
 * mode and owner, a link's target, a directory's mode and owner. Compared before and after an attack, it
 * proves nothing outside a workdir was created, written, removed or changed.
 */
export function snapshotTree(root: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const visit = (absolute: string, relative: string): void => {
    const stats = lstatSync(absolute);
    const owner = `${(stats.mode & 0o7777).toString(8)} ${stats.uid}:${stats.gid}`;
    if (stats.isSymbolicLink()) {
      entries[relative] = `link -> ${readlinkSync(absolute)}`;
    } else if (stats.isDirectory()) {
      entries[relative] = `dir ${owner}`;
      for (const name of readdirSync(absolute).sort())
        visit(path.join(absolute, name), path.join(relative, name));
    } else {
      const hash = stats.isFile()
        ? createHash('sha256').update(readFileSync(absolute)).digest('hex')
        : 'special';
      entries[relative] = `file ${owner} ${hash}`;
    }
  };
  visit(root, '.');
  return entries;
}
