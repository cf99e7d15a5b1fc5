import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { TroupeError } from '../../../core/errors.js';
import { inspectAt } from './inspect-entry.js';
import type { OpenedInWorkdir, OpenInWorkdirMode } from './opened-in-workdir.js';
import { componentsBelow, splitComponents, workdirRelativePath } from './resolve-in-workdir.js';
import { displayPath, fsErrorCode } from './workdir-fs-error.js';
import { giveTo } from './workdir-owner.js';
import { assertDescriptorInside, descriptorPath, escapesWorkdir, type WorkdirRoot } from './workdir-root.js';

// O_NONBLOCK keeps a named pipe planted in the workdir from hanging the open; it changes nothing for files.
const NO_FOLLOW = constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** Read-only, refusing a symlink at the final component. */
const READ_NO_FOLLOW_FLAGS = constants.O_RDONLY | NO_FOLLOW;
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const FINAL_FLAGS: Record<Exclude<OpenInWorkdirMode, 'write'>, number> = {
  read: READ_NO_FOLLOW_FLAGS,
  edit: constants.O_RDWR | NO_FOLLOW,
  directory: DIRECTORY_FLAGS,
  // Never used as a final open: `mkdir` walks its last component as a directory on the way.
  mkdir: DIRECTORY_FLAGS,
  any: READ_NO_FOLLOW_FLAGS,
  locate: READ_NO_FOLLOW_FLAGS,
};
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;
const OVERWRITE_FLAGS = constants.O_WRONLY | NO_FOLLOW;

/** Linux gives up after 40 symlink hops (ELOOP); links are followed by hand here, so bound them the same. */
const MAX_SYMLINK_HOPS = 40;
/** A component that keeps changing kind under us (another process swapping it) is given up on after this. */
const MAX_RETRIES = 40;

type ChildOutcome =
  | { kind: 'opened'; handle: FileHandle; created: boolean }
  | { kind: 'symlink'; target: string }
  | { kind: 'missing' }
  | { kind: 'retry' };

/** The walk of `openInWorkdir`: one component at a time from checked directory descriptors. */
export class DescriptorWalk {
  /** Directories opened below the root, outermost first; the last one is where the next name is looked up. */
  private readonly stack: FileHandle[] = [];
  private hops = 0;
  private retries = 0;

  constructor(
    private readonly root: WorkdirRoot,
    private readonly requestedPath: string,
    private readonly mode: OpenInWorkdirMode,
  ) {}

  async open(components: string[]): Promise<OpenedInWorkdir> {
    try {
      const pending = [...components];
      for (let name = pending.shift(); name !== undefined; name = pending.shift()) {
        if (name === '..') {
          // Only a symlink target can bring `..` here; the request's own were collapsed on the string.
          const left = this.stack.pop();
          if (left === undefined) throw escapesWorkdir(this.requestedPath);
          await left.close();
          continue;
        }
        // `mkdir` walks its last component like any directory on the way, creating it when missing.
        const last = pending.length === 0 && this.mode !== 'mkdir';
        const outcome = last ? await this.openFinal(name) : await this.openDirectory(name);
        if (outcome.kind === 'retry') {
          this.countRetry();
          pending.unshift(name);
        } else if (outcome.kind === 'symlink') {
          pending.unshift(...(await this.linkComponents(outcome.target)));
        } else if (outcome.kind === 'missing') {
          return await this.located([name, ...pending]);
        } else if (last) {
          return await this.finish(outcome.handle, outcome.created);
        } else {
          this.stack.push(outcome.handle);
        }
      }
      // The path ends on a directory already open (the workdir itself, or a link to a directory).
      if (this.mode !== 'directory' && this.mode !== 'any' && this.mode !== 'mkdir' && this.mode !== 'locate')
        throw this.notAFile();
      return await this.finish(await this.reopenCurrent(), false);
    } finally {
      await Promise.all(this.stack.map((handle) => handle.close()));
    }
  }

  private current(): FileHandle {
    return this.stack.at(-1) ?? this.root.handle;
  }

  /** The directory the walk stands in, reopened through its /proc link (the kernel follows it to this very one). */
  private reopenCurrent(): Promise<FileHandle> {
    return open(descriptorPath(this.current()), constants.O_RDONLY | constants.O_DIRECTORY);
  }

  /** `locate` met a missing component: the deepest directory that exists, and where the path leads from it. */
  private async located(rest: string[]): Promise<OpenedInWorkdir> {
    const opened = await this.finish(await this.reopenCurrent(), false);
    const realPath = path.join(opened.realPath, ...rest);
    return { ...opened, realPath, shownPath: workdirRelativePath(this.root.realPath, realPath) };
  }

  private async openDirectory(name: string): Promise<ChildOutcome> {
    const parent = this.current();
    const childPath = descriptorPath(parent, name);
    try {
      return { kind: 'opened', handle: await open(childPath, DIRECTORY_FLAGS), created: false };
    } catch (error) {
      const code = fsErrorCode(error);
      if (code === 'ENOENT' && this.mode === 'locate') return { kind: 'missing' };
      if (code === 'ENOTDIR' || code === 'ELOOP') {
        const entry = await inspectAt(parent, name);
        if (entry.kind === 'symlink') return entry;
        // It changed kind since the open (another process swapping it): look again.
        if (entry.kind !== 'other') return { kind: 'retry' };
        // A file where a directory should be: nothing to find below it, nothing can be created there.
        if (this.creates()) {
          throw new TroupeError(
            'tool_input_invalid',
            `Cannot create ${displayPath(this.requestedPath)}: a file is in the way`,
          );
        }
        throw this.notFound();
      }
      if (code !== 'ENOENT' || !this.creates()) throw error;
      await assertDescriptorInside(this.root, parent, this.requestedPath);
      try {
        await mkdir(childPath);
        const handle = await open(childPath, DIRECTORY_FLAGS);
        await giveTo(handle, this.root.owner).catch(async (chownError: unknown) => {
          await handle.close();
          throw chownError;
        });
        return { kind: 'opened', handle, created: false };
      } catch (mkdirError) {
        // Created or replaced meanwhile by someone else: the next attempt sees by what.
        const mkdirCode = fsErrorCode(mkdirError);
        if (mkdirCode !== 'EEXIST' && mkdirCode !== 'ENOENT' && mkdirCode !== 'ENOTDIR') throw mkdirError;
        return { kind: 'retry' };
      }
    }
  }

  private async openFinal(name: string): Promise<ChildOutcome> {
    const parent = this.current();
    const childPath = descriptorPath(parent, name);
    try {
      if (this.mode !== 'write')
        return { kind: 'opened', handle: await open(childPath, FINAL_FLAGS[this.mode]), created: false };
      await assertDescriptorInside(this.root, parent, this.requestedPath);
      let created: FileHandle | undefined;
      try {
        created = await open(childPath, CREATE_FLAGS, 0o666);
      } catch (error) {
        // O_EXCL refuses any existing name, a symlink (dangling or not) included: open what is there instead.
        if (fsErrorCode(error) !== 'EEXIST') throw error;
      }
      if (created !== undefined) {
        try {
          await giveTo(created, this.root.owner);
        } catch (error) {
          await created.close();
          throw error;
        }
        return { kind: 'opened', handle: created, created: true };
      }
      try {
        return { kind: 'opened', handle: await open(childPath, OVERWRITE_FLAGS), created: false };
      } catch (error) {
        // Removed between the two opens: create it on the next attempt.
        if (fsErrorCode(error) === 'ENOENT') return { kind: 'retry' };
        throw error;
      }
    } catch (error) {
      const code = fsErrorCode(error);
      if (code === 'ENOENT' && this.mode === 'locate') return { kind: 'missing' };
      const refusedLink = code === 'ELOOP' || (code === 'ENOTDIR' && this.mode === 'directory');
      if (!refusedLink) throw error;
      const entry = await inspectAt(parent, name);
      if (entry.kind === 'symlink') return entry;
      if (entry.kind !== 'other' || code === 'ELOOP') return { kind: 'retry' };
      throw new TroupeError('tool_input_invalid', `${displayPath(this.requestedPath)} is not a directory`);
    }
  }

  /** The components to walk instead of a symlink: relative ones from where it sits, absolute ones from the root. */
  private async linkComponents(target: string): Promise<string[]> {
    this.hops += 1;
    if (this.hops > MAX_SYMLINK_HOPS) {
      throw new TroupeError(
        'tool_input_invalid',
        `Path ${displayPath(this.requestedPath)} is a symbolic link loop`,
      );
    }
    if (!path.isAbsolute(target)) return splitComponents(target);
    const below = componentsBelow(this.root.configuredPath, this.root.realPath, target);
    if (below === undefined) throw escapesWorkdir(this.requestedPath);
    await Promise.all(this.stack.splice(0).map((handle) => handle.close()));
    return below;
  }

  private async finish(handle: FileHandle, created: boolean): Promise<OpenedInWorkdir> {
    try {
      const stats = await handle.stat();
      if (this.mode === 'read' || this.mode === 'edit' || this.mode === 'write') {
        if (stats.isDirectory()) throw this.notAFile();
        if (!stats.isFile()) {
          throw new TroupeError(
            'tool_input_invalid',
            `${displayPath(this.requestedPath)} is not a regular file`,
          );
        }
      }
      const realPath = await assertDescriptorInside(this.root, handle, this.requestedPath);
      const shownPath = workdirRelativePath(this.root.realPath, realPath);
      return {
        handle,
        stats,
        created,
        realPath,
        shownPath,
        realWorkdir: this.root.realPath,
        owner: this.root.owner,
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  private creates(): boolean {
    return this.mode === 'write' || this.mode === 'mkdir';
  }

  private countRetry(): void {
    this.retries += 1;
    if (this.retries > MAX_RETRIES) {
      throw new TroupeError(
        'tool_input_invalid',
        `Path ${displayPath(this.requestedPath)} kept changing while it was being opened; try again`,
      );
    }
  }

  private notFound(): TroupeError {
    return new TroupeError('file_not_found', `File not found: ${displayPath(this.requestedPath)}`);
  }

  private notAFile(): TroupeError {
    return new TroupeError(
      'tool_input_invalid',
      `${displayPath(this.requestedPath)} is a directory, not a file`,
    );
  }
}
