import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { TroupeError } from '../../../core/errors.js';
import { displayPath, fsErrorCode, workdirFsError } from './workdir-fs-error.js';

export interface ResolveInWorkdirOptions {
  /**
   * A write may name a path that does not exist yet (missing parent directories included); a read may not,
   * and gets `file_not_found`.
   */
  forWrite?: boolean;
}

/** Linux gives up after 40 symlink hops (ELOOP); links are followed by hand here, so bound them the same. */
const MAX_SYMLINK_HOPS = 40;

/**
 * Maps a path a model asked for onto an absolute real path inside the workdir, or throws
 * `path_outside_workdir`. Symlinks are resolved before the check (a link inside that points outside is
 * refused, wherever it sits in the path, dangling or not), so the answer is the file the OS would really touch.
 *
 * The check and the later open are two syscalls apart: callers open with O_NOFOLLOW and re-check the opened
 * file (see `openInWorkdir`) rather than trusting this answer alone.
 */
export async function resolveInWorkdir(
  workdir: string,
  requestedPath: string,
  options: ResolveInWorkdirOptions = {},
): Promise<string> {
  if (requestedPath.includes('\0')) {
    // Some C layers stop at NUL, so the path checked and the path opened could differ.
    throw outside(requestedPath, 'contains a NUL byte');
  }
  const realWorkdir = await realWorkdirOf(workdir);
  const relative = lexicalRelative(workdir, realWorkdir, requestedPath);
  if (relative === undefined) throw outside(requestedPath);

  const resolved = await resolveComponents(realWorkdir, relative, requestedPath);
  if (relativeInside(realWorkdir, resolved.path) === undefined) throw outside(requestedPath);
  if (resolved.missing && !options.forWrite) {
    throw new TroupeError('file_not_found', `File not found: ${displayPath(requestedPath)}`);
  }
  return resolved.path;
}

/** The workdir may itself sit under a symlink (macOS /tmp, a mounted volume): compare real against real. */
export async function realWorkdirOf(workdir: string): Promise<string> {
  try {
    return await realpath(workdir);
  } catch (error) {
    throw new TroupeError(
      'internal',
      `The project workdir is not accessible (${fsErrorCode(error) ?? 'error'})`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Whether `target` lies in `base` (or is `base`), judged on the strings alone: the relative path from `base`,
 * or undefined when `target` is elsewhere.
 */
export function relativeInside(base: string, target: string): string | undefined {
  const relative = path.relative(base, target);
  if (relative === '') return '';
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative))
    return undefined;
  return relative;
}

/** `..` is collapsed on the string, never by the OS, so `link/..` cannot step out through a symlinked dir. */
function lexicalRelative(workdir: string, realWorkdir: string, requestedPath: string): string | undefined {
  if (path.isAbsolute(requestedPath)) {
    const absolute = path.resolve(requestedPath);
    // A model may echo the workdir as it was configured or as it really is; both name the same place.
    return relativeInside(path.resolve(workdir), absolute) ?? relativeInside(realWorkdir, absolute);
  }
  return relativeInside(realWorkdir, path.resolve(realWorkdir, requestedPath));
}

interface ResolvedPath {
  path: string;
  /** Some trailing components do not exist yet. */
  missing: boolean;
}

/**
 * Resolves `relative` under the real workdir one component at a time, as the kernel does, following every
 * symlink (`realpath` alone would fail on a dangling link as on a missing file, yet writing through that link
 * would create its target). Components past the first missing one are appended as they are. Since `resolved`
 * never holds a symlink, `..` inside a link target is correctly its lexical parent.
 */
async function resolveComponents(
  realWorkdir: string,
  relative: string,
  requestedPath: string,
): Promise<ResolvedPath> {
  let resolved = realWorkdir;
  let missing = false;
  const pending = splitComponents(relative);
  let hops = 0;
  for (let component = pending.shift(); component !== undefined; component = pending.shift()) {
    if (component === '..') {
      resolved = path.dirname(resolved);
      continue;
    }
    const next = path.join(resolved, component);
    if (missing) {
      resolved = next;
      continue;
    }
    const entry = await inspectEntry(next, requestedPath);
    if (entry.kind === 'missing') {
      missing = true;
      resolved = next;
    } else if (entry.kind === 'other') {
      resolved = next;
    } else {
      const link = entry.target;
      hops += 1;
      if (hops > MAX_SYMLINK_HOPS) {
        throw new TroupeError(
          'tool_input_invalid',
          `Path ${displayPath(requestedPath)} is a symbolic link loop`,
        );
      }
      if (path.isAbsolute(link)) resolved = path.parse(link).root;
      pending.unshift(...splitComponents(link));
    }
  }
  return { path: resolved, missing };
}

/** Only `/` separates on POSIX, where a backslash is an ordinary file-name character. */
const SEPARATORS = path.sep === '\\' ? /[\\/]+/ : /\/+/;

function splitComponents(value: string): string[] {
  return value.split(SEPARATORS).filter((component) => component !== '' && component !== '.');
}

type InspectedEntry = { kind: 'missing' } | { kind: 'other' } | { kind: 'symlink'; target: string };

async function inspectEntry(candidate: string, requestedPath: string): Promise<InspectedEntry> {
  try {
    if (!(await lstat(candidate)).isSymbolicLink()) return { kind: 'other' };
    return { kind: 'symlink', target: await readlink(candidate) };
  } catch (error) {
    const code = fsErrorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    throw workdirFsError(error, requestedPath);
  }
}

function outside(requestedPath: string, reason = 'is outside the workdir'): TroupeError {
  return new TroupeError('path_outside_workdir', `Path ${displayPath(requestedPath)} ${reason}`);
}

/** How tools show a resolved path to the model: relative to the workdir, `/`-separated, `.` for the root. */
export function workdirRelativePath(realWorkdir: string, absolutePath: string): string {
  const relative = path.relative(realWorkdir, absolutePath);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}
