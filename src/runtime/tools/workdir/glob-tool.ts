import path from 'node:path';
import { z } from 'zod';
import { isTroupeError, TroupeError } from '../../../core/errors.js';
import { defineTool } from '../../../core/tools/troupe-tool.js';
import { compileGlob, hasGlobSyntax } from './compile-glob.js';
import { openInWorkdir } from './open-in-workdir.js';
import type { OpenedInWorkdir } from './opened-in-workdir.js';
import { compareNames, walkWorkdir, type WalkEntry } from './walk-workdir.js';
import { displayPath } from './workdir-fs-error.js';
import { SKIPPED_DIRECTORY_NAMES, WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

const globInputSchema = z
  .object({
    pattern: z
      .string()
      .min(1)
      .describe(
        'Relative to `path`, e.g. "src/**/*.{ts,tsx}" (`*`, `?` within a name, `**` any directories).',
      ),
    path: z.string().optional().describe('Directory to search from (default: the workdir root).'),
  })
  .strict();

export type GlobInput = z.infer<typeof globInputSchema>;

const MAX_RESULTS = WORKDIR_TOOL_LIMITS.globResults;

export const globTool = defineTool<GlobInput>({
  name: 'glob',
  effect: 'read_only',
  description:
    'Find files of the project workdir by glob pattern: matching file paths, one per line, sorted, at most ' +
    `${MAX_RESULTS}. node_modules, .git and symlinked directories are not searched.`,
  inputSchema: globInputSchema,
  async execute(input, context) {
    const pattern = normalizePattern(input.pattern);
    const requested = input.path ?? '.';
    const { prefix, rest } = splitStaticPrefix(pattern);
    const root = await openInWorkdir(context.workdir, requested, 'any');
    let base: OpenedInWorkdir | undefined;
    try {
      if (!root.stats.isDirectory()) {
        throw new TroupeError('tool_input_invalid', `${displayPath(requested)} is not a directory`);
      }
      base = prefix === '' ? root : await openBase(context.workdir, path.posix.join(root.shownPath, prefix));
      if (base === undefined) return noMatch(input.pattern);

      const matcher = compileGlob(rest);
      const crossesDirectories = rest.includes('**') || rest.includes('{');
      const matches: string[] = [];
      const walk = walkWorkdir(base.handle, {
        signal: context.abortSignal,
        realWorkdir: base.realWorkdir,
        skipDirectoryNames: SKIPPED_DIRECTORY_NAMES,
        ...(crossesDirectories ? {} : { maxDepth: rest.split('/').length }),
      });
      const baseShown = base.shownPath;
      for await (const entry of walk) {
        if (!matcher.test(entry.relativePath)) continue;
        const shown = baseShown === '.' ? entry.relativePath : `${baseShown}/${entry.relativePath}`;
        if (!(await isFileInside(context.workdir, entry, shown))) continue;
        matches.push(shown);
        if (matches.length > MAX_RESULTS) break;
      }
      if (matches.length === 0) return noMatch(input.pattern);
      const truncated = matches.length > MAX_RESULTS;
      const lines = matches.slice(0, MAX_RESULTS).sort(compareNames);
      if (truncated) lines.push(`(stopped at ${MAX_RESULTS} files; use a narrower pattern or path)`);
      return lines.join('\n');
    } finally {
      if (base !== undefined && base !== root) await base.handle.close();
      await root.handle.close();
    }
  },
});

function normalizePattern(pattern: string): string {
  const normalized = pattern.replace(/\/{2,}/g, '/').replace(/^(?:\.\/)+/, '');
  if (normalized.startsWith('/') || normalized.split('/').includes('..')) {
    throw new TroupeError(
      'tool_input_invalid',
      'The glob pattern must be relative, without "..": choose the directory to search with `path`',
    );
  }
  return normalized;
}

/**
 * Leading literal directories of the pattern (`src/app` in `src/app/**\/*.ts`): the walk starts there instead
 * of at the root, so a narrow pattern does not scan the whole tree. The last segment always stays in `rest`.
 */
function splitStaticPrefix(pattern: string): { prefix: string; rest: string } {
  const segments = pattern.split('/');
  let literal = 0;
  while (literal < segments.length - 1 && !hasGlobSyntax(segments[literal] ?? '')) literal += 1;
  return { prefix: segments.slice(0, literal).join('/'), rest: segments.slice(literal).join('/') };
}

/**
 * The directory to walk, opened and checked, or undefined when the literal prefix is missing, not a directory
 * or leads outside (nothing to match).
 */
async function openBase(workdir: string, relative: string): Promise<OpenedInWorkdir | undefined> {
  try {
    return await openInWorkdir(workdir, relative, 'directory');
  } catch (error) {
    if (
      isTroupeError(error, 'file_not_found') ||
      isTroupeError(error, 'path_outside_workdir') ||
      isTroupeError(error, 'tool_input_invalid')
    )
      return undefined;
    throw error;
  }
}

/**
 * Regular files match; a symlink matches only when it leads to a file inside the workdir, which is found out
 * by opening it the checked way (by its workdir path; the walk itself never follows it).
 */
async function isFileInside(workdir: string, entry: WalkEntry, shown: string): Promise<boolean> {
  if (entry.kind === 'file') return true;
  if (entry.kind !== 'symlink') return false;
  try {
    const opened = await openInWorkdir(workdir, shown, 'any');
    await opened.handle.close();
    return opened.stats.isFile();
  } catch {
    return false;
  }
}

function noMatch(pattern: string): string {
  return `No files match ${JSON.stringify(pattern)}`;
}
