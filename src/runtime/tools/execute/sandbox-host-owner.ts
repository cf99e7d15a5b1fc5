import type { WorkdirOwner } from '../workdir/workdir-owner.js';

/**
 * The host uid and gid sandboxed commands run as, and so the owner of every project workdir, when Troupe runs
 * as root (`TROUPE_EXECUTE_SANDBOX_UID`, for both). As any other user there is none: the sandbox is that user.
 */
export function sandboxHostOwner(sandboxUid: number): WorkdirOwner | undefined {
  return process.geteuid?.() === 0 ? { uid: sandboxUid, gid: sandboxUid } : undefined;
}
