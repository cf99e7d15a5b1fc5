import { gzipSync } from 'node:zlib';
import { zipSync, type Zippable } from 'fflate';

/** Test archives, honest and hostile. Not used by the product. */

export const text = (value: string) => new TextEncoder().encode(value);

export function skillMd(
  name: string,
  description = `The ${name} skill`,
  body = `# ${name}\n\nDo it well.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

export interface ZipEntry {
  path: string;
  content: Uint8Array | string;
  /** Unix mode with file type bits (e.g. 0o120777 for a symlink); stored in the external attributes. */
  mode?: number;
  /** 0 stores, 9 deflates hardest (the default 6 otherwise). */
  level?: 0 | 9;
}

export function zipOf(entries: readonly ZipEntry[]): Uint8Array {
  const zippable: Zippable = {};
  for (const entry of entries) {
    const content = typeof entry.content === 'string' ? text(entry.content) : entry.content;
    zippable[entry.path] = [
      content,
      {
        ...(entry.mode === undefined ? {} : { os: 3, attrs: (entry.mode << 16) >>> 0 }),
        ...(entry.level === undefined ? {} : { level: entry.level }),
      },
    ];
  }
  return zipSync(zippable);
}

/** Rewrites every declared uncompressed size in the central directory: a zip that lies about its bomb. */
export function withDeclaredSizes(zip: Uint8Array, size: number): Uint8Array {
  const copy = zip.slice();
  const view = new DataView(copy.buffer);
  for (let at = 0; at + 46 <= copy.byteLength; at += 1) {
    if (view.getUint32(at, true) === 0x02014b50) view.setUint32(at + 24, size, true);
    if (view.getUint32(at, true) === 0x04034b50) view.setUint32(at + 22, size, true);
  }
  return copy;
}

export interface TarEntry {
  path: string;
  content?: Uint8Array | string;
  /** Tar type flag: '0' file (default), '5' folder, '1' hard link, '2' symlink, '3' device, 'x' pax, 'L' long name. */
  type?: string;
  linkname?: string;
}

function header(entry: TarEntry, size: number): Uint8Array {
  const block = new Uint8Array(512);
  const put = (value: string, at: number, length: number) => block.set(text(value).subarray(0, length), at);
  put(entry.path, 0, 100);
  put('0000644\0', 100, 8);
  put('0000000\0', 108, 8);
  put('0000000\0', 116, 8);
  put(`${size.toString(8).padStart(11, '0')}\0`, 124, 12);
  put('00000000000\0', 136, 12);
  put(entry.type ?? '0', 156, 1);
  put(entry.linkname ?? '', 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  block.fill(0x20, 148, 156);
  const sum = block.reduce((total, byte) => total + byte, 0);
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return block;
}

export function tarOf(entries: readonly TarEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const content =
      entry.content === undefined
        ? new Uint8Array(0)
        : typeof entry.content === 'string'
          ? text(entry.content)
          : entry.content;
    parts.push(
      header(entry, content.byteLength),
      content,
      new Uint8Array((512 - (content.byteLength % 512)) % 512),
    );
  }
  parts.push(new Uint8Array(1024));
  const total = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const tar = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    tar.set(part, at);
    at += part.byteLength;
  }
  return tar;
}

export function tarGzOf(entries: readonly TarEntry[]): Uint8Array {
  return new Uint8Array(gzipSync(tarOf(entries)));
}

/** A pax extended header record setting `path` for the next entry. */
export function paxPath(value: string): TarEntry {
  const body = (length: number) => `${length} path=${value}\n`;
  let length = body(0).length;
  while (body(length).length !== length) length = body(length).length;
  return { path: 'PaxHeader', type: 'x', content: body(length) };
}
