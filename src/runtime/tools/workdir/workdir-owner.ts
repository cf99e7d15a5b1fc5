import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** A host uid and gid. */
export interface WorkdirOwner {
  uid: number;
  gid: number;
}

/**
 * Who gets what the server creates in a workdir for the sandbox to work with (the directories it makes, the
 * files the tools write for the model): the workdir's own owner, when this process is root and that owner is
 * not. A root server makes each project workdir belong to the sandbox's host uid (`createProjectWorkdir`),
 * and the sandbox holds no capability over files it does not own (README "Sandboxed `execute`"), so anything
 * left to root would be read-only inside. A server that is not root owns everything itself: nothing to give.
 */
export function workdirOwnerOf(stats: Pick<Stats, 'uid' | 'gid'>): WorkdirOwner | undefined {
  if (process.geteuid?.() !== 0 || stats.uid === 0) return undefined;
  return { uid: stats.uid, gid: stats.gid };
}

/** Gives an open file or directory to `owner` through its descriptor (never a path that could be swapped). */
export async function giveTo(handle: FileHandle, owner: WorkdirOwner | undefined): Promise<void> {
  if (owner !== undefined) await handle.chown(owner.uid, owner.gid);
}
