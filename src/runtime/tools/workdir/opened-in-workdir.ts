import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { WorkdirOwner } from './workdir-owner.js';

/**
 * `read` and `edit` need an existing regular file; `write` creates it (and its missing parent directories);
 * `directory` needs a directory; `mkdir` opens a directory, creating it and its missing parents; `any`
 * takes what is there (a file, a directory or something else); `locate` is `any` that, where a component is
 * missing, opens the deepest directory that exists and reports in `realPath` where the path leads (where
 * `write` would create it). None truncates: a writer truncates only once the opened file has been checked.
 * What `write` and `mkdir` create belongs to the workdir's owner (`WorkdirRoot.owner`), so the sandbox can
 * work with it.
 */
export type OpenInWorkdirMode = 'read' | 'edit' | 'write' | 'directory' | 'mkdir' | 'any' | 'locate';

export interface OpenedInWorkdir {
  handle: FileHandle;
  /** Stats of the opened descriptor, not of the path: they describe the file actually opened. */
  stats: Stats;
  /** The file did not exist and was created by this open (`write` only). */
  created: boolean;
  /** Where the descriptor was when it was checked, and the same relative to the workdir for display. */
  realPath: string;
  shownPath: string;
  realWorkdir: string;
  /** Who gets what the server creates in this workdir for the sandbox (`WorkdirRoot.owner`). */
  owner: WorkdirOwner | undefined;
}
