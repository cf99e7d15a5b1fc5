import type { SkillLimits } from './skill-limits.js';

/** C0 controls and DEL: never part of a file name a model or a console should have to show. */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
const DRIVE_LETTER = /^[a-zA-Z]:/;

/**
 * The path of an entry as it will be stored, or a reason to refuse the whole skill. Lexical only: every way
 * in (zip, tar, folder) funnels its names through here, so `..`, absolute paths, drive letters and
 * backslashes are refused the same way whatever the container. A leading `./` (as `tar -C dir .` writes it)
 * is dropped; any other `.` or empty component is refused rather than normalised, so what is checked is what
 * is stored.
 */
export function normalizeSkillPath(
  raw: string,
  limits: Pick<SkillLimits, 'maxPathChars' | 'maxDepth'>,
): { path: string } | { problem: string } {
  if (raw.includes('\\')) return { problem: 'contains a backslash' };
  if (hasControlCharacter(raw)) return { problem: 'contains a control character' };
  if (raw.startsWith('/')) return { problem: 'is an absolute path' };
  if (DRIVE_LETTER.test(raw)) return { problem: 'starts with a drive letter' };
  let path = raw;
  while (path.startsWith('./')) path = path.slice(2);
  if (path === '' || path === '.') return { problem: 'is empty' };
  if (path.length > limits.maxPathChars)
    return { problem: `is longer than ${limits.maxPathChars} characters` };
  const components = path.split('/');
  if (components.length > limits.maxDepth)
    return { problem: `is nested deeper than ${limits.maxDepth} levels` };
  for (const component of components) {
    if (component === '..') return { problem: 'climbs out with ".."' };
    if (component === '' || component === '.') return { problem: 'has an empty or "." component' };
  }
  return { path };
}

/** Entries that archivers add on their own and that nobody means as part of a skill. */
export function isArchiverJunk(path: string): boolean {
  const components = path.split('/');
  return components[0] === '__MACOSX' || components.at(-1) === '.DS_Store';
}
