import { open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { TroupeError } from '../../../core/errors.js';
import { defineTool } from '../troupe-tool.js';
import { compileGlob } from './compile-glob.js';
import { isBinary } from './is-binary.js';
import { READ_NO_FOLLOW_FLAGS } from './open-in-workdir.js';
import { readAtMost } from './read-at-most.js';
import { realWorkdirOf, resolveInWorkdir, workdirRelativePath } from './resolve-in-workdir.js';
import { walkWorkdir } from './walk-workdir.js';
import { SKIPPED_DIRECTORY_NAMES, WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

const grepInputSchema = z
  .object({
    pattern: z.string().min(1).describe('JavaScript regular expression, tested against each line.'),
    path: z
      .string()
      .optional()
      .describe(
        'File or directory to search, relative to the project workdir. Defaults to the workdir itself.',
      ),
    glob: z
      .string()
      .optional()
      .describe(
        'Only search files matching this glob: without "/" it matches the file name ("*.ts"), with "/" the ' +
          'path from `path` ("src/**/*.ts").',
      ),
    ignore_case: z.boolean().optional().describe('Match case-insensitively. Defaults to false.'),
  })
  .strict();

export type GrepInput = z.infer<typeof grepInputSchema>;

const LIMITS = WORKDIR_TOOL_LIMITS;
/** Checking the signal on every line would cost more than the match; every few thousand lines is prompt enough. */
const ABORT_CHECK_LINES = 4096;

export const grepTool = defineTool<GrepInput>({
  name: 'grep',
  description:
    'Search file contents in the project workdir with a JavaScript regular expression. Returns matching lines as ' +
    `"file:line: text" (file relative to the workdir, line 1-based), at most ${LIMITS.grepMatches}. ` +
    `Binary files, files over ${LIMITS.grepFileBytes / 1024 / 1024} MiB, node_modules and .git are skipped; ` +
    'symlinks are not followed.',
  inputSchema: grepInputSchema,
  async execute(input, context) {
    const signal = context.abortSignal;
    const regex = compileRegex(input.pattern, input.ignore_case ?? false);
    const fileFilter = input.glob === undefined ? undefined : compileFileFilter(input.glob);
    const realWorkdir = await realWorkdirOf(context.workdir);
    const root = await resolveInWorkdir(context.workdir, input.path ?? '.');

    const matches: string[] = [];
    let skippedLarge = 0;
    const searchOne = async (absolutePath: string): Promise<void> => {
      const result = await searchFile(absolutePath, regex, signal, LIMITS.grepMatches + 1 - matches.length);
      if (result === 'too_large') {
        skippedLarge += 1;
        return;
      }
      const shown = workdirRelativePath(realWorkdir, absolutePath);
      for (const { line, text } of result) matches.push(`${shown}:${line}: ${text}`);
    };

    if ((await stat(root)).isFile()) {
      await searchOne(root);
    } else {
      const walk = walkWorkdir(root, { signal, skipDirectoryNames: SKIPPED_DIRECTORY_NAMES });
      for await (const entry of walk) {
        if (entry.kind !== 'file') continue;
        if (fileFilter && !fileFilter(entry.relativePath)) continue;
        await searchOne(entry.absolutePath);
        if (matches.length > LIMITS.grepMatches) break;
      }
    }

    const lines =
      matches.length === 0 ? [`No matches for /${input.pattern}/`] : matches.slice(0, LIMITS.grepMatches);
    if (matches.length > LIMITS.grepMatches) {
      lines.push(`(stopped at ${LIMITS.grepMatches} matches; narrow the pattern, path or glob)`);
    }
    if (skippedLarge > 0) {
      lines.push(
        `(skipped ${skippedLarge} file${skippedLarge === 1 ? '' : 's'} over ${LIMITS.grepFileBytes / 1024 / 1024} MiB)`,
      );
    }
    return lines.join('\n');
  },
});

function compileRegex(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TroupeError('tool_input_invalid', `Invalid regular expression: ${reason}`, { cause: error });
  }
}

function compileFileFilter(glob: string): (relativePath: string) => boolean {
  const matcher = compileGlob(glob.replace(/^(?:\.\/)+/, ''));
  if (!glob.includes('/')) return (relativePath) => matcher.test(path.posix.basename(relativePath));
  return (relativePath) => matcher.test(relativePath);
}

interface LineMatch {
  line: number;
  text: string;
}

/**
 * Matching lines of one file, at most `maxMatches`; 'too_large' past the size cap. Binary and unreadable files
 * give no matches: one odd file should not fail a search of the whole tree.
 */
async function searchFile(
  absolutePath: string,
  regex: RegExp,
  signal: AbortSignal,
  maxMatches: number,
): Promise<LineMatch[] | 'too_large'> {
  signal.throwIfAborted();
  let handle: FileHandle;
  try {
    // A walked file may have been swapped for a symlink since readdir; O_NOFOLLOW refuses it.
    handle = await open(absolutePath, READ_NO_FOLLOW_FLAGS);
  } catch {
    return [];
  }
  let bytes: Buffer | undefined;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return [];
    if (stats.size > LIMITS.grepFileBytes) return 'too_large';
    bytes = await readAtMost(handle, LIMITS.grepFileBytes, signal);
  } finally {
    await handle.close();
  }
  if (bytes === undefined) return 'too_large';
  if (isBinary(bytes)) return [];

  const found: LineMatch[] = [];
  const lines = bytes.toString('utf8').split('\n');
  // A final newline ends the last line; it does not start an empty one.
  if (lines.at(-1) === '') lines.pop();
  for (let index = 0; index < lines.length && found.length < maxMatches; index += 1) {
    if (index % ABORT_CHECK_LINES === 0) signal.throwIfAborted();
    const text = (lines[index] ?? '').replace(/\r$/, '');
    if (regex.test(text)) found.push({ line: index + 1, text: clip(text) });
  }
  return found;
}

function clip(text: string): string {
  return text.length <= LIMITS.grepLineChars ? text : `${text.slice(0, LIMITS.grepLineChars)}…`;
}
