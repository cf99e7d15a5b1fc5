import { z } from 'zod';
import { defineTool } from '../../../core/tools/troupe-tool.js';
import { openInWorkdir } from './open-in-workdir.js';
import { displayPath } from './workdir-fs-error.js';

const writeFileInputSchema = z
  .object({
    path: z.string().min(1).describe('Relative to the project workdir.'),
    content: z.string().describe('The whole new content (UTF-8 text).'),
  })
  .strict();

export type WriteFileInput = z.infer<typeof writeFileInputSchema>;

export const writeFileTool = defineTool<WriteFileInput>({
  name: 'write_file',
  effect: 'idempotent',
  description:
    'Create a file of the project workdir or replace its whole content (missing parent directories are ' +
    'created). To change part of a file use edit_file.',
  inputSchema: writeFileInputSchema,
  sensitive: true,
  async execute(input, context) {
    context.abortSignal.throwIfAborted();
    const { handle, created } = await openInWorkdir(context.workdir, input.path, 'write');
    try {
      // Truncated only now: the open was checked, so a refused path never loses its old content.
      await handle.truncate(0);
      const bytes = Buffer.from(input.content, 'utf8');
      await handle.writeFile(bytes);
      return `${created ? 'Created' : 'Overwrote'} ${displayPath(input.path)} (${bytes.length} bytes)`;
    } finally {
      await handle.close();
    }
  },
});
