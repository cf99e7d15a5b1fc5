import { DEFAULT_SKILL_LIMITS, type SkillLimits } from './skill-limits.js';

/** C0 controls and DEL: never part of a file name a model or a console should have to show. */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
const DRIVE_LETTER = /^[a-zA-Z]:/;
const encoder = new TextEncoder();

function utf8Bytes(value: string): number {
  return encoder.encode(value).byteLength;
}

/**
 * The path of an entry as it will be stored, or a reason to refuse the whole skill. Lexical only: every way
 * in (zip, tar, folder) funnels its names through here, so `..`, absolute paths, drive letters and
 * backslashes are refused the same way whatever the container. A leading `./` (as `tar -C dir .` writes it)
 * is dropped; any other `.` or empty component is refused rather than normalised, so what is checked is what
 * is stored.
 */
export function normalizeSkillPath(
  raw: string,
  limits: Pick<SkillLimits, 'maxPathBytes' | 'maxNameBytes' | 'maxDepth'>,
): { path: string } | { problem: string } {
  if (raw.includes('\\')) return { problem: 'contains a backslash' };
  if (hasControlCharacter(raw)) return { problem: 'contains a control character' };
  if (raw.startsWith('/')) return { problem: 'is an absolute path' };
  if (DRIVE_LETTER.test(raw)) return { problem: 'starts with a drive letter' };
  let path = raw;
  while (path.startsWith('./')) path = path.slice(2);
  if (path === '' || path === '.') return { problem: 'is empty' };
  // Bytes, not characters: a file system counts bytes, and a name of 200 two-byte characters is 400 of them.
  if (utf8Bytes(path) > limits.maxPathBytes)
    return { problem: `is longer than ${limits.maxPathBytes} bytes` };
  const components = path.split('/');
  if (components.length > limits.maxDepth)
    return { problem: `is nested deeper than ${limits.maxDepth} levels` };
  for (const component of components) {
    if (component === '..') return { problem: 'climbs out with ".."' };
    if (component === '' || component === '.') return { problem: 'has an empty or "." component' };
    if (utf8Bytes(component) > limits.maxNameBytes)
      return { problem: `has a name longer than ${limits.maxNameBytes} bytes` };
  }
  return { path };
}

/** Entries that archivers add on their own and that nobody means as part of a skill. */
export function isArchiverJunk(path: string): boolean {
  const components = path.split('/');
  return components[0] === '__MACOSX' || components.at(-1) === '.DS_Store';
}

/**
 * Why a stored file of a skill cannot be projected into a workdir, or undefined: its name measured in bytes,
 * as a file system measures it (skills stored before names were measured so can still hold such a file).
 */
export function unprojectablePath(path: string): string | undefined {
  const checked = normalizeSkillPath(path, { ...DEFAULT_SKILL_LIMITS, maxDepth: Number.POSITIVE_INFINITY });
  return 'problem' in checked ? `file ${JSON.stringify(path.slice(0, 200))} ${checked.problem}` : undefined;
}
