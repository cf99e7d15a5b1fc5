import path from 'node:path';

/**
 * The string half of path handling: what a requested path or a symlink target names, relative to the
 * workdir, before anything touches the disk. Nothing here says whether that place is safe to open: only the
 * descriptor walk of `openInWorkdir` does, since any answer about a path is stale by the time it is opened.
 */

/**
 * The workdir-relative path a model asked for, with `..` collapsed on the string (never by the OS, so
 * `link/..` cannot step out through a symlinked directory), or undefined when it names a place outside.
 * Absolute paths are accepted when they lie under the workdir as configured or as it really is.
 */
export function resolveInWorkdir(
  configuredWorkdir: string,
  realWorkdir: string,
  requestedPath: string,
): string | undefined {
  if (path.isAbsolute(requestedPath)) {
    const absolute = path.resolve(requestedPath);
    return relativeInside(path.resolve(configuredWorkdir), absolute) ?? relativeInside(realWorkdir, absolute);
  }
  return relativeInside(realWorkdir, path.resolve(realWorkdir, requestedPath));
}

/**
 * The components of an absolute symlink target below the workdir, or undefined when it points elsewhere.
 * Compared component by component without collapsing `..`: a `..` after the workdir prefix is left for the
 * descriptor walk, which resolves it against the directories it really went through.
 */
export function componentsBelow(
  configuredWorkdir: string,
  realWorkdir: string,
  absoluteTarget: string,
): string[] | undefined {
  const target = splitComponents(absoluteTarget);
  for (const base of [realWorkdir, path.resolve(configuredWorkdir)]) {
    const prefix = splitComponents(base);
    if (prefix.every((component, index) => target[index] === component)) return target.slice(prefix.length);
  }
  return undefined;
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

/** Only `/` separates on POSIX, where a backslash is an ordinary file-name character. */
const SEPARATORS = path.sep === '\\' ? /[\\/]+/ : /\/+/;

/** Path components without empty and `.` ones; `..` is kept for the caller to resolve. */
export function splitComponents(value: string): string[] {
  return value.split(SEPARATORS).filter((component) => component !== '' && component !== '.');
}

/** How tools show a real path to the model: relative to the workdir, `/`-separated, `.` for the root. */
export function workdirRelativePath(realWorkdir: string, absolutePath: string): string {
  const relative = path.relative(realWorkdir, absolutePath);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}
