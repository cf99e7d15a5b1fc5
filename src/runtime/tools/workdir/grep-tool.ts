import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { TroupeError } from '../../../core/errors.js';
import { defineTool } from '../../../core/tools/troupe-tool.js';
import { compileGlob } from './compile-glob.js';
import { isBinary } from './is-binary.js';
import { openInWorkdir } from './open-in-workdir.js';
import { readAtMost } from './read-at-most.js';
import { openWalkedFile, walkWorkdir } from './walk-workdir.js';
import { displayPath } from './workdir-fs-error.js';
import { SKIPPED_DIRECTORY_NAMES, WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

const grepInputSchema = z
  .object({
    pattern: z.string().min(1).describe('JavaScript regular expression, tested per line.'),
    path: z.string().optional().describe('File or directory to search (default: the workdir root).'),
    glob: z
      .string()
      .optional()
      .describe('Only files matching this glob: by name ("*.ts"), or with "/" by path ("src/**/*.ts").'),
    ignore_case: z.boolean().optional().describe('Default false.'),
  })
  .strict();

export type GrepInput = z.infer<typeof grepInputSchema>;

const LIMITS = WORKDIR_TOOL_LIMITS;
/** Checking the signal on every line would cost more than the match; every few thousand lines is prompt enough. */
const ABORT_CHECK_LINES = 4096;

export const grepTool = defineTool<GrepInput>({
  name: 'grep',
  effect: 'read_only',
  description:
    'Search file contents of the project workdir: matching lines as "file:line: text", at most ' +
    `${LIMITS.grepMatches}. Binary files, files over ${LIMITS.grepFileBytes / 1024 / 1024} MiB, node_modules and ` +
    '.git are skipped.',
  inputSchema: grepInputSchema,
  async execute(input, context) {
    const signal = context.abortSignal;
    const regex = compileRegex(input.pattern, input.ignore_case ?? false);
    const fileFilter = input.glob === undefined ? undefined : compileFileFilter(input.glob);
    const requested = input.path ?? '.';
    const root = await openInWorkdir(context.workdir, requested, 'any');

    const matches: string[] = [];
    let skippedLarge = 0;
    /** Searches an open, checked file; its opener closes it. */
    const searchOne = async (handle: FileHandle, shown: string): Promise<void> => {
      const result = await searchFile(handle, regex, signal, LIMITS.grepMatches + 1 - matches.length);
      if (result === 'too_large') {
        skippedLarge += 1;
        return;
      }
      for (const { line, text } of result) matches.push(`${shown}:${line}: ${text}`);
    };

    try {
      if (root.stats.isFile()) {
        await searchOne(root.handle, root.shownPath);
      } else if (!root.stats.isDirectory()) {
        throw new TroupeError('tool_input_invalid', `${displayPath(requested)} is not a file or directory`);
      } else {
        const walk = walkWorkdir(root.handle, {
          signal,
          realWorkdir: root.realWorkdir,
          skipDirectoryNames: SKIPPED_DIRECTORY_NAMES,
        });
        for await (const entry of walk) {
          if (entry.kind !== 'file') continue;
          if (fileFilter && !fileFilter(entry.relativePath)) continue;
          const handle = await openWalkedFile(entry, root.realWorkdir);
          if (handle === undefined) continue;
          try {
            await searchOne(
              handle,
              root.shownPath === '.' ? entry.relativePath : `${root.shownPath}/${entry.relativePath}`,
            );
          } finally {
            await handle.close();
          }
          if (matches.length > LIMITS.grepMatches) break;
        }
      }
    } finally {
      await root.handle.close();
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
 * Matching lines of an open file, at most `maxMatches`; 'too_large' past the size cap. Binary files give no
 * matches: one odd file should not fail a search of the whole tree.
 */
async function searchFile(
  handle: FileHandle,
  regex: RegExp,
  signal: AbortSignal,
  maxMatches: number,
): Promise<LineMatch[] | 'too_large'> {
  signal.throwIfAborted();
  const stats = await handle.stat();
  if (stats.size > LIMITS.grepFileBytes) return 'too_large';
  const bytes = await readAtMost(handle, LIMITS.grepFileBytes, signal);
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
