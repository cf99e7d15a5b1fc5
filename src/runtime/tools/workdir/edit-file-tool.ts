import { z } from 'zod';
import { TroupeError } from '../../../core/errors.js';
import { defineTool } from '../../../core/tools/troupe-tool.js';
import { isBinary } from './is-binary.js';
import { openInWorkdir } from './open-in-workdir.js';
import { readAtMost } from './read-at-most.js';
import { displayPath } from './workdir-fs-error.js';
import { WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

const editFileInputSchema = z
  .object({
    path: z.string().min(1).describe('Relative to the project workdir.'),
    old_string: z.string().min(1).describe('Exact text, whitespace and indentation included.'),
    new_string: z.string().describe('Replacement text.'),
    replace_all: z.boolean().optional().describe('Replace every occurrence (default false).'),
  })
  .strict();

export type EditFileInput = z.infer<typeof editFileInputSchema>;

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export const editFileTool = defineTool<EditFileInput>({
  name: 'edit_file',
  effect: 'idempotent',
  description:
    'Replace exact text in a file of the project workdir. old_string must occur exactly once (add surrounding ' +
    'lines to make it unique) unless replace_all is set. Read the file first.',
  inputSchema: editFileInputSchema,
  sensitive: true,
  async execute(input, context) {
    const shown = displayPath(input.path);
    if (input.old_string === input.new_string) {
      throw new TroupeError(
        'tool_input_invalid',
        'old_string and new_string are identical: nothing to change',
      );
    }
    const { handle } = await openInWorkdir(context.workdir, input.path, 'edit');
    try {
      const bytes = await readAtMost(handle, WORKDIR_TOOL_LIMITS.editBytes, context.abortSignal);
      if (bytes === undefined) {
        throw new TroupeError(
          'file_too_large',
          `${shown} is over the ${WORKDIR_TOOL_LIMITS.editBytes / 1024} KiB edit limit; rewrite it with write_file`,
        );
      }
      const content = decodeText(bytes, shown);
      // split/join rather than String.replace: `$&` and friends in new_string must stay literal.
      const pieces = content.split(input.old_string);
      const occurrences = pieces.length - 1;
      if (occurrences === 0) {
        throw new TroupeError('tool_input_invalid', `old_string was not found in ${shown}`);
      }
      if (occurrences > 1 && !input.replace_all) {
        throw new TroupeError(
          'tool_input_invalid',
          `old_string occurs ${occurrences} times in ${shown}; add surrounding lines to make it unique, or set replace_all`,
        );
      }
      const updated = Buffer.from(pieces.join(input.new_string), 'utf8');
      context.abortSignal.throwIfAborted();
      await handle.truncate(0);
      // Reads were positional, so the file offset is still 0 where writeFile starts.
      await handle.writeFile(updated);
      return `Edited ${shown}: replaced ${occurrences} occurrence${occurrences === 1 ? '' : 's'}`;
    } finally {
      await handle.close();
    }
  },
});

/**
 * Refuses what would not survive a decode/encode round trip, so an edit never corrupts the bytes it leaves
 * alone (`ignoreBOM` keeps a byte-order mark in the text instead of dropping it).
 */
function decodeText(bytes: Buffer, shown: string): string {
  if (isBinary(bytes)) throw new TroupeError('tool_input_invalid', `${shown} is a binary file, not text`);
  try {
    return fatalUtf8.decode(bytes);
  } catch {
    throw new TroupeError('tool_input_invalid', `${shown} is not valid UTF-8 text`);
  }
}
