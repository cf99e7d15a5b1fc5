import { randomBytes } from 'node:crypto';
import { constants, type Dirent, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { TroupeError } from '../../../core/errors.js';
import { readAtMost } from './read-at-most.js';
import { removeEntry } from './remove-entry.js';
import { relativeInside } from './resolve-in-workdir.js';
import { fsErrorCode, workdirFsError } from './workdir-fs-error.js';
import { giveTo, type WorkdirOwner } from './workdir-owner.js';
import { descriptorPath, descriptorRealPath, escapesWorkdir } from './workdir-root.js';

/**
 * Who gets a directory the server creates: `workdir` (the default) gives it to the workdir's owner, so the
 * sandbox can work in it; `server` keeps it the server's (read-only inside the sandbox); or a given owner.
 */
export type CreatedOwner = 'workdir' | 'server' | WorkdirOwner;

export interface OpenDirectoryOptions {
  /** Create what is missing. */
  create?: boolean;
  /**
   * For paths the server reserves (`.troupe/…`, `.skills`): a symlink or file in the way is removed (the link
   * itself, never its target) and a real directory made in its place, instead of the link being followed.
   */
  reclaim?: boolean;
  /**
   * Mode and owner of a directory this call creates (0o755, `workdir` by default). Without `reclaim`,
   * `openWorkdirDirectory` creates the way the file tools do (`openInWorkdir`, mode `mkdir`) and ignores them.
   */
  mode?: number;
  owner?: CreatedOwner;
}

const DIRECTORY_NO_FOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const READ_NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CREATE_EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** Each attempt only fails when another process changes the entry at that very moment. */
const MAX_ATTEMPTS = 10;
/** Linux's NAME_MAX: the longest name one directory entry can have, in bytes. */
export const MAX_NAME_BYTES = 255;

/**
 * A directory of a workdir, held by a descriptor checked to lie in the workdir. Every operation names one
 * entry of it and reaches that entry through the descriptor (`/proc/self/fd/N/name`, the `*at` calls of
 * Linux): no path is looked up again, no symlink at the entry is followed, so nothing another process swaps in
 * meanwhile (an `execute` command of the same project) can lead a server write outside.
 */
export class WorkdirDirectory {
  constructor(
    readonly handle: FileHandle,
    /** Real path of the workdir this directory was checked to be in. */
    readonly realWorkdir: string,
    /** Who gets what is created here for the sandbox (`WorkdirRoot.owner`). */
    readonly owner: WorkdirOwner | undefined,
    /** Relative to the workdir, `/`-separated, for messages. */
    readonly shownPath: string,
  ) {}

  /**
   * Creates the file `name` with `content`, exclusively (O_EXCL|O_NOFOLLOW): a name taken by anything, a
   * symlink or dangling link included, is left untouched and answers false. The file keeps the server's
   * ownership, so the sandbox can read it (by `mode`) but never change it.
   */
  async createFile(name: string, content: Uint8Array | string, mode = 0o644): Promise<boolean> {
    let handle: FileHandle;
    try {
      handle = await open(this.entry(name), CREATE_EXCLUSIVE, mode);
    } catch (error) {
      if (fsErrorCode(error) === 'EEXIST') return false;
      throw workdirFsError(error, this.shown(name));
    }
    try {
      // Set on the descriptor: the umask would otherwise decide what the sandbox may read.
      await handle.chmod(mode);
      await handle.writeFile(content);
    } catch (error) {
      await handle.close();
      await this.remove(name).catch(() => undefined);
      throw workdirFsError(error, this.shown(name));
    }
    await handle.close();
    return true;
  }

  /**
   * Replaces the file `name` whole: written under a fresh name, then renamed over it, so a symlink planted
   * there is replaced (never followed, its target never written) and a reader sees the old or the new
   * content. A directory in the way is removed first.
   */
  async writeFile(name: string, content: Uint8Array | string, mode = 0o644): Promise<void> {
    const staging = `.troupe-${randomBytes(8).toString('hex')}.partial`;
    if (!(await this.createFile(staging, content, mode))) {
      throw new TroupeError('internal', `Cannot write ${this.shown(name)}: a staging name was taken`);
    }
    try {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
        try {
          await rename(this.entry(staging), this.entry(name));
          return;
        } catch (error) {
          const code = fsErrorCode(error);
          if (code !== 'EISDIR' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
          await this.remove(name);
        }
      }
      throw new TroupeError('internal', `Cannot write ${this.shown(name)}: it kept changing`);
    } catch (error) {
      await this.remove(staging).catch(() => undefined);
      throw workdirFsError(error, this.shown(name));
    }
  }

  /** Reads the regular file `name` (no symlink followed), or undefined when it holds more than `maxBytes`. */
  async readFile(
    name: string,
    maxBytes: number,
    signal = new AbortController().signal,
  ): Promise<Buffer | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.entry(name), READ_NO_FOLLOW);
    } catch (error) {
      throw workdirFsError(error, this.shown(name));
    }
    try {
      if (!(await handle.stat()).isFile()) {
        throw new TroupeError('tool_input_invalid', `${this.shown(name)} is not a regular file`);
      }
      return await readAtMost(handle, maxBytes, signal);
    } finally {
      await handle.close();
    }
  }

  /** The directory `name`, never through a symlink (refused, or with `reclaim` replaced by a real directory). */
  async openDirectory(name: string, options: OpenDirectoryOptions = {}): Promise<WorkdirDirectory> {
    const entry = this.entry(name);
    let created = false;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      let handle: FileHandle;
      try {
        handle = await open(entry, DIRECTORY_NO_FOLLOW);
      } catch (error) {
        const code = fsErrorCode(error);
        if (code === 'ENOENT' && options.create) {
          created = (await this.tryMkdir(entry, options.mode)) || created;
          continue;
        }
        if (code !== 'ELOOP' && code !== 'ENOTDIR') throw workdirFsError(error, this.shown(name));
        // O_NOFOLLOW|O_DIRECTORY refuses a symlink with either code: look at what is there, without following.
        const found = await this.statEntry(name);
        if (found === undefined || found.isDirectory()) continue;
        if (options.reclaim) {
          // unlink removes the link (or file) itself; a directory swapped in meanwhile is simply opened next.
          await unlink(entry).catch((unlinkError: unknown) => {
            if (!['ENOENT', 'EISDIR', 'EPERM'].includes(fsErrorCode(unlinkError) ?? '')) throw unlinkError;
          });
          continue;
        }
        if (found.isSymbolicLink()) {
          throw new TroupeError(
            'path_outside_workdir',
            `${this.shown(name)} is a symbolic link; it is not followed`,
          );
        }
        throw new TroupeError('tool_input_invalid', `${this.shown(name)} is not a directory`);
      }
      return this.adopt(handle, name, created ? options : undefined);
    }
    throw new TroupeError('internal', `${this.shown(name)} kept changing while it was opened`);
  }

  /** Creates the directory `name` (it must not exist) and opens it. */
  async makeDirectory(
    name: string,
    options: Pick<OpenDirectoryOptions, 'mode' | 'owner'> = {},
  ): Promise<WorkdirDirectory> {
    const entry = this.entry(name);
    try {
      await mkdir(entry, options.mode ?? 0o755);
    } catch (error) {
      throw workdirFsError(error, this.shown(name));
    }
    let handle: FileHandle;
    try {
      handle = await open(entry, DIRECTORY_NO_FOLLOW);
    } catch (error) {
      throw workdirFsError(error, this.shown(name));
    }
    return this.adopt(handle, name, options);
  }

  /** Removes `name`, a whole tree included, following no symlink (`removeEntry`); false when it was not there. */
  async remove(name: string): Promise<boolean> {
    return removeEntry(this.handle, this.checkedName(name), this.realWorkdir);
  }

  /** Renames an entry within this directory; whatever `to` named (a symlink included) is replaced, never followed. */
  async rename(from: string, to: string): Promise<void> {
    await rename(this.entry(from), this.entry(to));
  }

  async list(): Promise<Dirent[]> {
    return readdir(descriptorPath(this.handle), { withFileTypes: true });
  }

  /** What `name` is, without following it; undefined when it is not there. */
  async statEntry(name: string): Promise<Stats | undefined> {
    try {
      return await lstat(this.entry(name));
    } catch (error) {
      if (fsErrorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private async tryMkdir(entry: string, mode = 0o755): Promise<boolean> {
    try {
      await mkdir(entry, mode);
      return true;
    } catch (error) {
      // Made by someone else meanwhile: the next open looks at what it is.
      if (fsErrorCode(error) === 'EEXIST') return false;
      throw error;
    }
  }

  /** Checks a directory opened below this one and, when this call created it, sets its mode and owner. */
  private async adopt(
    handle: FileHandle,
    name: string,
    created: Pick<OpenDirectoryOptions, 'mode' | 'owner'> | undefined,
  ): Promise<WorkdirDirectory> {
    try {
      if (relativeInside(this.realWorkdir, await descriptorRealPath(handle)) === undefined) {
        throw escapesWorkdir(this.shown(name));
      }
      if (created !== undefined) {
        await handle.chmod(created.mode ?? 0o755);
        await giveTo(handle, this.ownerFor(created.owner));
      }
    } catch (error) {
      await handle.close();
      throw error;
    }
    return new WorkdirDirectory(handle, this.realWorkdir, this.owner, this.shown(name));
  }

  private ownerFor(owner: CreatedOwner = 'workdir'): WorkdirOwner | undefined {
    if (owner === 'workdir') return this.owner;
    return owner === 'server' ? undefined : owner;
  }

  private entry(name: string): string {
    return descriptorPath(this.handle, this.checkedName(name));
  }

  /** One entry name, never a path: what the kernel looks up below the descriptor is exactly this name. */
  private checkedName(name: string): string {
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
      throw new TroupeError('tool_input_invalid', `${JSON.stringify(name)} is not a file name`);
    }
    if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) {
      throw new TroupeError(
        'tool_input_invalid',
        `${JSON.stringify(this.shown(name))} has a name longer than ${MAX_NAME_BYTES} bytes`,
      );
    }
    return name;
  }

  private shown(name: string): string {
    return this.shownPath === '.' ? name : `${this.shownPath}/${name}`;
  }
}
