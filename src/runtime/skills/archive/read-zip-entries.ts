import { Inflate } from 'fflate';
import { TroupeError } from '../../../core/errors.js';
import type { RawSkillEntry } from '../../../core/skills/build-skill-package.js';
import type { SkillLimits } from '../../../core/skills/skill-limits.js';
import { crc32 } from './crc32.js';
import { UnpackBudget } from './unpack-budget.js';

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
const CENTRAL_SIZE = 46;
const LOCAL_SIZE = 30;
/** Compressed bytes fed to the inflater at once: bounds what one push can expand to (deflate tops at ~1032:1). */
const INFLATE_SLICE = 4096;

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const MADE_BY_UNIX = 3;

function invalid(message: string): TroupeError {
  return new TroupeError('skill_invalid', `Zip archive: ${message}`);
}

interface CentralEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  isDirectory: boolean;
}

/**
 * Reads a zip from its central directory (the listing unzip tools trust) and inflates each file under a
 * running byte budget. Refused: ZIP64, multi-disk and encrypted archives, methods other than stored and
 * deflate, symlinks and any non-regular Unix file type, and any entry whose bytes do not match its
 * declared size and CRC.
 */
export function readZipEntries(bytes: Uint8Array, limits: SkillLimits): RawSkillEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const central = readCentralDirectory(bytes, view);
  const budget = new UnpackBudget(limits);
  const declared = central.filter((entry) => !entry.isDirectory);
  declared.forEach(() => budget.addFile());
  // A quick refusal on honest headers before anything is inflated; lying ones are caught while inflating.
  const declaredBytes = declared.reduce((sum, entry) => sum + entry.size, 0);
  if (declaredBytes > limits.maxTotalBytes) budget.addBytes(declaredBytes);
  return declared.map((entry) => ({ path: entry.name, content: readEntry(bytes, view, entry, budget) }));
}

function readCentralDirectory(bytes: Uint8Array, view: DataView): CentralEntry[] {
  const eocd = findEndOfCentralDirectory(view);
  if (eocd === undefined) throw invalid('no end-of-central-directory record (not a zip, or truncated)');
  const disk = view.getUint16(eocd + 4, true);
  const centralDisk = view.getUint16(eocd + 6, true);
  const count = view.getUint16(eocd + 10, true);
  const size = view.getUint32(eocd + 12, true);
  const offset = view.getUint32(eocd + 16, true);
  if (disk !== 0 || centralDisk !== 0) throw invalid('multi-disk archives are not supported');
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff)
    throw invalid('ZIP64 archives are not supported');
  if (offset + size > eocd) throw invalid('the central directory lies outside the archive');
  const entries: CentralEntry[] = [];
  let cursor = offset;
  for (let index = 0; index < count; index += 1) {
    if (cursor + CENTRAL_SIZE > offset + size || view.getUint32(cursor, true) !== CENTRAL_SIGNATURE) {
      throw invalid('the central directory is corrupt');
    }
    const madeBy = view.getUint16(cursor + 4, true) >> 8;
    const flags = view.getUint16(cursor + 8, true);
    const nameLength = view.getUint16(cursor + 28, true);
    const extraLength = view.getUint16(cursor + 30, true);
    const commentLength = view.getUint16(cursor + 32, true);
    const externalAttributes = view.getUint32(cursor + 38, true);
    const nameEnd = cursor + CENTRAL_SIZE + nameLength;
    if (nameEnd > bytes.byteLength) throw invalid('the central directory is corrupt');
    const name = decodeName(bytes.subarray(cursor + CENTRAL_SIZE, nameEnd));
    const mode = madeBy === MADE_BY_UNIX ? (externalAttributes >>> 16) & S_IFMT : 0;
    if (mode === S_IFLNK)
      throw invalid(`${JSON.stringify(name)} is a symbolic link; links are not allowed in a skill`);
    if (mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR) {
      throw invalid(
        `${JSON.stringify(name)} is not a regular file (devices, pipes and sockets are not allowed)`,
      );
    }
    if (flags & 0x1) throw invalid(`${JSON.stringify(name)} is encrypted`);
    entries.push({
      name,
      method: view.getUint16(cursor + 10, true),
      crc: view.getUint32(cursor + 16, true),
      compressedSize: view.getUint32(cursor + 20, true),
      size: view.getUint32(cursor + 24, true),
      localOffset: view.getUint32(cursor + 42, true),
      isDirectory: name.endsWith('/') || mode === S_IFDIR,
    });
    cursor = nameEnd + extraLength + commentLength;
  }
  return entries;
}

function findEndOfCentralDirectory(view: DataView): number | undefined {
  // The record ends the file, followed only by a comment of at most 65,535 bytes.
  const lowest = Math.max(0, view.byteLength - EOCD_SIZE - 0xffff);
  for (let at = view.byteLength - EOCD_SIZE; at >= lowest; at -= 1) {
    if (view.getUint32(at, true) === EOCD_SIGNATURE) return at;
  }
  return undefined;
}

function decodeName(raw: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw invalid('an entry name is not UTF-8');
  }
}

function readEntry(bytes: Uint8Array, view: DataView, entry: CentralEntry, budget: UnpackBudget): Uint8Array {
  const at = entry.localOffset;
  if (at + LOCAL_SIZE > bytes.byteLength || view.getUint32(at, true) !== LOCAL_SIGNATURE) {
    throw invalid(`the local header of ${JSON.stringify(entry.name)} is missing`);
  }
  const start = at + LOCAL_SIZE + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (end > bytes.byteLength) throw invalid(`${JSON.stringify(entry.name)} is truncated`);
  const data = bytes.subarray(start, end);
  let content: Uint8Array;
  if (entry.method === 0) {
    budget.addBytes(data.byteLength);
    content = data.slice();
  } else if (entry.method === 8) {
    content = inflateCapped(data, budget, entry.name);
  } else {
    throw invalid(
      `${JSON.stringify(entry.name)} uses compression method ${entry.method}; only stored and deflate are supported`,
    );
  }
  if (content.byteLength !== entry.size)
    throw invalid(`${JSON.stringify(entry.name)} does not have its declared size`);
  if (crc32(content) !== entry.crc) throw invalid(`${JSON.stringify(entry.name)} fails its CRC check`);
  return content;
}

function inflateCapped(data: Uint8Array, budget: UnpackBudget, name: string): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const inflater = new Inflate((chunk) => {
    budget.addBytes(chunk.byteLength);
    total += chunk.byteLength;
    chunks.push(chunk);
  });
  try {
    let offset = 0;
    do {
      const next = Math.min(offset + INFLATE_SLICE, data.byteLength);
      inflater.push(data.subarray(offset, next), next >= data.byteLength);
      offset = next;
    } while (offset < data.byteLength);
  } catch (error) {
    if (error instanceof TroupeError) throw error;
    throw invalid(
      `${JSON.stringify(name)} does not inflate (${error instanceof Error ? error.message : 'corrupt data'})`,
    );
  }
  const content = new Uint8Array(total);
  let position = 0;
  for (const chunk of chunks) {
    content.set(chunk, position);
    position += chunk.byteLength;
  }
  return content;
}
