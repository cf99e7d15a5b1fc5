import { constants } from 'node:fs';
import { mkdir, open, readdir, type FileHandle } from 'node:fs/promises';
import type { WorkdirOwner } from '../tools/workdir/workdir-owner.js';

/** Project workdirs live here, below the data dir. */
export const WORKDIRS_DIR = 'workdirs';

const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY;
const NO_FOLLOW = constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Creates the data dir and its `workdirs/` for nobody but the server, and tightens existing ones (start-up;
 * returns what it changed, for one log line). Without a sandbox owner (a server that is not root) both are
 * 0700. A root server's sandbox runs as an unprivileged uid that bubblewrap must let reach the workdir it
 * mounts, so both are 0710 with that uid's group: it can pass through, never list or read (the database files
 * are 0600), and no other host user gets anything. Every project workdir is 0700, owned by the sandbox uid
 * when there is one (only the directory: what is inside stays as it was). Entries are reached through the
 * descriptor of the directory holding them and never through a symlink.
 */
export async function prepareDataDir(dataDir: string, sandbox: WorkdirOwner | undefined): Promise<string[]> {
  const changes: string[] = [];
  const directoryMode = sandbox === undefined ? 0o700 : 0o710;
  const group = sandbox?.gid;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // The operator's configured path: a symlink there is the operator's, and followed.
  const data = await open(dataDir, DIRECTORY);
  try {
    await setMode(data, 'the data dir', directoryMode, group, changes);
    let files = 0;
    let workdirs: FileHandle | undefined;
    for (const entry of await readdir(at(data), { withFileTypes: true })) {
      if (entry.isFile()) files += (await tightenFile(data, entry.name)) ? 1 : 0;
    }
    if (files > 0) changes.push(`${files} file${files === 1 ? '' : 's'} in it -> 0600`);
    await mkdir(at(data, WORKDIRS_DIR), 0o700).catch((error: unknown) => {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    });
    try {
      workdirs = await open(at(data, WORKDIRS_DIR), DIRECTORY | NO_FOLLOW);
      await setMode(workdirs, `${WORKDIRS_DIR}/`, directoryMode, group, changes);
      let tightened = 0;
      for (const entry of await readdir(at(workdirs), { withFileTypes: true })) {
        if (entry.isDirectory()) tightened += (await tightenWorkdir(workdirs, entry.name, sandbox)) ? 1 : 0;
      }
      if (tightened > 0) {
        const owner = sandbox === undefined ? '' : `, owned by uid ${sandbox.uid}`;
        changes.push(`${tightened} workdir${tightened === 1 ? '' : 's'} -> 0700${owner}`);
      }
    } finally {
      await workdirs?.close();
    }
  } finally {
    await data.close();
  }
  return changes;
}

/** The root of the project workdirs, created (with any missing parent) for the server alone when missing. */
export async function ensureWorkdirsRoot(workdirRoot: string): Promise<void> {
  await mkdir(workdirRoot, { recursive: true, mode: 0o700 });
}

function at(directory: FileHandle, name?: string): string {
  return name === undefined ? `/proc/self/fd/${directory.fd}` : `/proc/self/fd/${directory.fd}/${name}`;
}

async function setMode(
  handle: FileHandle,
  label: string,
  mode: number,
  group: number | undefined,
  changes: string[],
): Promise<void> {
  const stats = await handle.stat();
  const current = stats.mode & 0o7777;
  const regroup = group !== undefined && stats.gid !== group;
  if (current === mode && !regroup) return;
  if (regroup) await handle.chown(stats.uid, group);
  await handle.chmod(mode);
  // Only a tightening is news: giving a fresh 0700 directory the sandbox's group is the layout itself.
  if ((current & ~mode) === 0) return;
  const to = regroup ? `${mode.toString(8)}, group ${group}` : mode.toString(8);
  changes.push(`${label} ${current.toString(8)} -> ${to}`);
}

async function tightenFile(directory: FileHandle, name: string): Promise<boolean> {
  const handle = await open(at(directory, name), constants.O_RDONLY | NO_FOLLOW).catch(() => undefined);
  if (handle === undefined) return false;
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || (stats.mode & 0o077) === 0) return false;
    await handle.chmod(stats.mode & 0o700);
    return true;
  } finally {
    await handle.close();
  }
}

async function tightenWorkdir(
  workdirs: FileHandle,
  name: string,
  sandbox: WorkdirOwner | undefined,
): Promise<boolean> {
  const handle = await open(at(workdirs, name), DIRECTORY | NO_FOLLOW).catch(() => undefined);
  if (handle === undefined) return false;
  try {
    const stats = await handle.stat();
    const loose = (stats.mode & 0o077) !== 0;
    const foreign = sandbox !== undefined && (stats.uid !== sandbox.uid || stats.gid !== sandbox.gid);
    if (foreign) await handle.chown(sandbox.uid, sandbox.gid);
    if (loose) await handle.chmod(stats.mode & 0o700);
    return loose || foreign;
  } finally {
    await handle.close();
  }
}
