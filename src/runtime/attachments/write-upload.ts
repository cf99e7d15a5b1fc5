import { numberedFileName } from '../../core/files/sanitize-file-name.js';
import { TroupeError } from '../../core/errors.js';
import { openWorkdirDirectory } from '../tools/workdir/open-workdir-directory.js';
import type { WorkdirDirectory } from '../tools/workdir/workdir-directory.js';

export const UPLOADS_DIR = 'uploads';
const MAX_NAME_ATTEMPTS = 1000;

export interface WrittenUpload {
  /** The name it got (with a `-N` suffix when the sanitised name was taken). */
  name: string;
  /** Relative to the workdir: `uploads/{name}` (where `uploads` really is, should it be a link in the workdir). */
  path: string;
}

/** The workdir's `uploads/`, created when missing (for the sandbox to work in); the caller closes it. */
export function openUploads(workdir: string): Promise<WorkdirDirectory> {
  return openWorkdirDirectory(workdir, UPLOADS_DIR, { create: true });
}

/**
 * Creates `{name}` in the open `uploads/`, never overwriting: the file is created exclusively (O_EXCL, no
 * symlink followed), and a taken name (by anything, a directory or a link included) moves on to `name-1.ext`,
 * `name-2.ext`… The file stays the server's, read-only inside the sandbox: it is what the user uploaded.
 */
export async function writeUpload(
  uploads: WorkdirDirectory,
  name: string,
  bytes: Uint8Array,
): Promise<WrittenUpload> {
  for (let counter = 0; counter < MAX_NAME_ATTEMPTS; counter++) {
    const candidate = numberedFileName(name, counter);
    if (await uploads.createFile(candidate, bytes)) {
      return { name: candidate, path: `${uploads.shownPath}/${candidate}` };
    }
  }
  throw new TroupeError(
    'validation_failed',
    `Too many files named like ${name} in ${UPLOADS_DIR}/; rename the file`,
  );
}
