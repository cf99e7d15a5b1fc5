import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface TempWorkdir {
  /** The project workdir under test. */
  workdir: string;
  /** A sibling directory outside the workdir, holding `secret.txt`, for escape attempts to aim at. */
  outside: string;
  /** Writes a file under the workdir, creating parent directories. */
  write(relativePath: string, content: string | Buffer): Promise<string>;
  cleanup(): Promise<void>;
}

export async function createTempWorkdir(): Promise<TempWorkdir> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'troupe-workdir-'));
  const workdir = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  await mkdir(workdir);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'top secret\n');
  return {
    workdir,
    outside,
    async write(relativePath, content) {
      const target = path.join(workdir, relativePath);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
      return target;
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
