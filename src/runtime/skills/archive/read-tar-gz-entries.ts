import { gunzipSync } from 'node:zlib';
import { TroupeError } from '../../../core/errors.js';
import type { RawSkillEntry } from '../../../core/skills/build-skill-package.js';
import { tooLarge } from '../../../core/skills/build-skill-package.js';
import type { SkillLimits } from '../../../core/skills/skill-limits.js';
import { UnpackBudget } from './unpack-budget.js';

const BLOCK = 512;
/** Headers, padding and the end marker on top of the file bytes: two blocks per file and some slack. */
const tarOverhead = (limits: SkillLimits) => (limits.maxFiles * 4 + 64) * BLOCK;

function invalid(message: string): TroupeError {
  return new TroupeError('skill_invalid', `Tar archive: ${message}`);
}

/*
 * Hand-written on purpose, not the `tar` package: node-tar inflates gzip with no output cap (the cap on
 * decompressed bytes would still be ours), hands its filter the sizes the headers claim rather than the bytes
 * that follow, silently ignores entry types it does not know, and its extractor rewrites unsafe paths
 * (strips a leading `/`, skips `..` with a warning) where a skill upload must be refused. Every cap and path rule of
 * docs/skills-and-knowledge.md#skills would still be enforced here, on top of a stream state machine.
 */

/**
 * Gunzips under a hard output cap (`maxOutputLength`: a gzip bomb stops at the cap, not at its claimed size)
 * and walks the tar headers. Regular files and folders only: hard and symbolic links, devices and pipes are
 * refused. Long names come from pax `path` records or GNU `L` entries.
 */
export function readTarGzEntries(bytes: Uint8Array, limits: SkillLimits): RawSkillEntry[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes, { maxOutputLength: limits.maxTotalBytes + tarOverhead(limits) });
  } catch (error) {
    if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw tooLarge(`The archive unpacks to more than the ${limits.maxTotalBytes}-byte skill limit`, {
        maxTotalBytes: limits.maxTotalBytes,
      });
    }
    throw new TroupeError(
      'skill_invalid',
      `Gzip: ${error instanceof Error ? error.message : 'corrupt data'}`,
    );
  }
  return readTarEntries(tar, limits);
}

export function readTarEntries(tar: Uint8Array, limits: SkillLimits): RawSkillEntry[] {
  const budget = new UnpackBudget(limits);
  const entries: RawSkillEntry[] = [];
  let longName: string | undefined;
  let paxPath: string | undefined;
  let offset = 0;
  for (;;) {
    if (offset + BLOCK > tar.byteLength) throw invalid('truncated (no end-of-archive marker)');
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    verifyChecksum(header);
    const type = String.fromCharCode(header[156] ?? 0);
    const size = readSize(header);
    const dataStart = offset + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.byteLength) throw invalid('truncated entry');
    const data = tar.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    const name = paxPath ?? longName ?? headerName(header);
    switch (type) {
      case 'x':
        paxPath = paxRecords(data).get('path');
        continue;
      case 'g':
        continue;
      case 'L':
        longName = decode(data).replace(/\0+$/, '');
        continue;
      case '0':
      case '\0':
      case '7':
        budget.addFile();
        budget.addBytes(size);
        entries.push({ path: name, content: data.slice() });
        break;
      case '5':
        break;
      case '1':
      case '2':
        throw invalid(
          `${JSON.stringify(name)} is a ${type === '1' ? 'hard' : 'symbolic'} link; links are not allowed in a skill`,
        );
      case '3':
      case '4':
      case '6':
        throw invalid(`${JSON.stringify(name)} is a device or pipe; only regular files are allowed`);
      default:
        throw invalid(`${JSON.stringify(name)} has unsupported entry type ${JSON.stringify(type)}`);
    }
    longName = undefined;
    paxPath = undefined;
  }
  return entries;
}

function decode(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalid('an entry name is not UTF-8');
  }
}

function field(header: Uint8Array, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return decode(end === -1 ? raw : raw.subarray(0, end));
}

function headerName(header: Uint8Array): string {
  const name = field(header, 0, 100);
  // Only POSIX ustar puts a prefix there; GNU tar keeps other data in those bytes.
  const ustar = field(header, 257, 6) === 'ustar';
  const prefix = ustar ? field(header, 345, 155) : '';
  return prefix === '' ? name : `${prefix}/${name}`;
}

function octal(header: Uint8Array, start: number, length: number): number {
  const text = String.fromCharCode(...header.subarray(start, start + length))
    .replace(/[\0 ]+$/, '')
    .replace(/^ +/, '');
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw invalid('a header holds a malformed number');
  return parseInt(text, 8);
}

function readSize(header: Uint8Array): number {
  // Base-256 sizes are for files over 8 GiB: far past any skill limit.
  if (((header[124] ?? 0) & 0x80) !== 0) throw invalid('an entry is far too large');
  return octal(header, 124, 12);
}

function verifyChecksum(header: Uint8Array): void {
  const stored = octal(header, 148, 8);
  let sum = 0;
  for (let index = 0; index < BLOCK; index += 1)
    sum += index >= 148 && index < 156 ? 0x20 : (header[index] ?? 0);
  if (sum !== stored) throw invalid('a header checksum does not match (not a tar archive, or corrupt)');
}

/** pax records: `"<length> <key>=<value>\n"` repeated. */
function paxRecords(data: Uint8Array): Map<string, string> {
  const records = new Map<string, string>();
  const text = decode(data);
  let at = 0;
  while (at < text.length) {
    const space = text.indexOf(' ', at);
    const length = Number(text.slice(at, space));
    if (space === -1 || !Number.isInteger(length) || length <= 0) throw invalid('a pax header is malformed');
    const record = text.slice(space + 1, at + length - 1);
    const equals = record.indexOf('=');
    if (equals === -1) throw invalid('a pax header is malformed');
    records.set(record.slice(0, equals), record.slice(equals + 1));
    at += length;
  }
  return records;
}
