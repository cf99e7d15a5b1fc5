/** File names stay well under the 255-byte limit of common file systems, suffix included. */
const MAX_NAME_BYTES = 180;
export const FALLBACK_FILE_NAME = 'file';

/**
 * What an uploaded file is called on disk: the last path component only (`/` and `\` both separate, since
 * clients send either), without control characters or bidirectional overrides (names that render unlike
 * what they are), without leading dots (no hidden files, no `.` or `..`), whitespace trimmed, and at most
 * MAX_NAME_BYTES of UTF-8 with the extension kept.
 */
export function sanitizeFileName(raw: string): string {
  const base = raw.split(/[\\/]/).at(-1) ?? '';
  const cleaned = base
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '')
    .trim()
    .replace(/^\.+/, '')
    .trim();
  if (cleaned === '') return FALLBACK_FILE_NAME;
  return truncateKeepingExtension(cleaned, MAX_NAME_BYTES);
}

/** `report.pdf`, 2 → `report-2.pdf`; `.`-less names get the suffix at the end. */
export function numberedFileName(name: string, counter: number): string {
  if (counter === 0) return name;
  const { stem, extension } = splitExtension(name);
  return `${stem}-${counter}${extension}`;
}

function splitExtension(name: string): { stem: string; extension: string } {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return { stem: name, extension: '' };
  return { stem: name.slice(0, dot), extension: name.slice(dot) };
}

const encoder = new TextEncoder();

function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

function truncateKeepingExtension(name: string, maxBytes: number): string {
  if (utf8Length(name) <= maxBytes) return name;
  let { stem, extension } = splitExtension(name);
  // An absurd "extension" is part of the name, not something to keep.
  if (utf8Length(extension) > 16) {
    stem = name;
    extension = '';
  }
  const chars = [...stem];
  while (chars.length > 0 && utf8Length(chars.join('') + extension) > maxBytes) chars.pop();
  const kept = chars.join('').trim();
  return kept === '' ? FALLBACK_FILE_NAME + extension : kept + extension;
}
