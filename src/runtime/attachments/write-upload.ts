import { numberedFileName } from '../../core/files/sanitize-file-name.js';
import { TroupeError, isTroupeError } from '../../core/errors.js';
import { openInWorkdir } from '../tools/workdir/open-in-workdir.js';

export const UPLOADS_DIR = 'uploads';
const MAX_NAME_ATTEMPTS = 1000;

export interface WrittenUpload {
  /** The name it got (with a `-N` suffix when the sanitised name was taken). */
  name: string;
  /** Relative to the workdir: `uploads/{name}`. */
  path: string;
  /** Absolute, for removing it again if the request fails later. */
  absolutePath: string;
}

/**
 * Creates `uploads/{name}` in the workdir, never overwriting: the guarded open creates the file exclusively
 * (O_EXCL, no symlink followed), and a taken name moves on to `name-1.ext`, `name-2.ext`… A directory in the
 * way counts as taken.
 */
export async function writeUpload(workdir: string, name: string, bytes: Uint8Array): Promise<WrittenUpload> {
  for (let counter = 0; counter < MAX_NAME_ATTEMPTS; counter++) {
    const candidate = numberedFileName(name, counter);
    const path = `${UPLOADS_DIR}/${candidate}`;
    let opened;
    try {
      opened = await openInWorkdir(workdir, path, 'write');
    } catch (error) {
      if (isTroupeError(error, 'tool_input_invalid')) continue;
      throw error;
    }
    const { handle, created, realPath: absolutePath } = opened;
    try {
      if (!created) continue;
      await handle.writeFile(bytes);
      return { name: candidate, path, absolutePath };
    } finally {
      await handle.close();
    }
  }
  throw new TroupeError('validation_failed', `Too many files named like ${name} in ${UPLOADS_DIR}/; rename the file`);
}
