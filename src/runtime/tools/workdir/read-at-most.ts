import type { FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 64 * 1024;

/**
 * Reads a whole file unless it holds more than `maxBytes` (then undefined). Bounded by what is read, not by an
 * earlier stat, so a file that grows meanwhile still cannot make it allocate without limit.
 */
export async function readAtMost(
  handle: FileHandle,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    signal.throwIfAborted();
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) return undefined;
  }
}
