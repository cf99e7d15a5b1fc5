import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { TroupeError } from '../../../core/errors.js';
import { defineTool } from '../../../core/tools/troupe-tool.js';
import { isBinary } from './is-binary.js';
import { openInWorkdir } from './open-in-workdir.js';
import { readAtMost } from './read-at-most.js';
import { displayPath } from './workdir-fs-error.js';
import { WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

const MAX_KIB = WORKDIR_TOOL_LIMITS.readBytes / 1024;

const readFileInputSchema = z
  .object({
    path: z.string().describe('Relative to the project workdir.'),
    offset: z.number().int().min(1).optional().describe('First line, 1-based (default 1).'),
    limit: z.number().int().min(1).optional().describe('Number of lines (default: to the end).'),
  })
  .strict();

export type ReadFileInput = z.infer<typeof readFileInputSchema>;

export const readFileTool = defineTool<ReadFileInput>({
  name: 'read_file',
  effect: 'read_only',
  description:
    'Read a text file of the project workdir, exactly as stored (no line numbers). ' +
    `Files over ${MAX_KIB} KiB are read in parts with \`offset\` and \`limit\`.`,
  inputSchema: readFileInputSchema,
  async execute(input, context) {
    const { handle, stats } = await openInWorkdir(context.workdir, input.path, 'read');
    try {
      const bytes =
        input.offset === undefined && input.limit === undefined
          ? await readWhole(handle, stats.size, input.path, context.abortSignal)
          : await readLines(handle, input, context.abortSignal);
      if (isBinary(bytes)) {
        throw new TroupeError('tool_input_invalid', `${displayPath(input.path)} is a binary file, not text`);
      }
      return bytes.toString('utf8');
    } finally {
      await handle.close();
    }
  },
});

async function readWhole(
  handle: FileHandle,
  size: number,
  requestedPath: string,
  signal: AbortSignal,
): Promise<Buffer> {
  const bytes =
    size > WORKDIR_TOOL_LIMITS.readBytes
      ? undefined
      : await readAtMost(handle, WORKDIR_TOOL_LIMITS.readBytes, signal);
  if (bytes === undefined) {
    throw new TroupeError(
      'file_too_large',
      `${displayPath(requestedPath)} is ${size} bytes, over the ${MAX_KIB} KiB read limit; ` +
        'read it in parts with offset and limit (lines)',
    );
  }
  return bytes;
}

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Streams the file and keeps lines `offset`..`offset + limit - 1` byte for byte (line endings included), so a
 * file of any size can be paged through while memory stays bounded by the read limit.
 */
async function readLines(handle: FileHandle, input: ReadFileInput, signal: AbortSignal): Promise<Buffer> {
  const firstLine = input.offset ?? 1;
  const lastLine = input.limit === undefined ? Number.POSITIVE_INFINITY : firstLine + input.limit - 1;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let line = 1;
  let position = 0;
  let endsWithNewline = false;
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  while (line <= lastLine) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const data = chunk.subarray(0, bytesRead);
    endsWithNewline = data[bytesRead - 1] === NEWLINE;
    let lineStart = 0;
    while (lineStart < bytesRead && line <= lastLine) {
      const newline = data.indexOf(NEWLINE, lineStart);
      const lineEnd = newline === -1 ? bytesRead : newline + 1;
      if (line >= firstLine) {
        // Copied: `chunk` is reused by the next read.
        kept.push(Buffer.from(data.subarray(lineStart, lineEnd)));
        keptBytes += lineEnd - lineStart;
        if (keptBytes > WORKDIR_TOOL_LIMITS.readBytes) {
          throw new TroupeError(
            'file_too_large',
            `Lines from ${firstLine} of ${displayPath(input.path)} exceed the ${MAX_KIB} KiB read limit; ask for fewer lines`,
          );
        }
      }
      if (newline !== -1) line += 1;
      lineStart = lineEnd;
    }
  }
  if (kept.length === 0 && firstLine > 1) {
    const lineCount = position === 0 ? 0 : endsWithNewline ? line - 1 : line;
    throw new TroupeError(
      'tool_input_invalid',
      `offset ${firstLine} is past the end of ${displayPath(input.path)}, which has ${lineCount} lines`,
    );
  }
  return Buffer.concat(kept, keptBytes);
}
