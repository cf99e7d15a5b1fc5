import { TroupeError } from '../../core/errors.js';

/**
 * Text of an uploaded text file: UTF-8 (a BOM is dropped), or Windows-1252 when the bytes are not valid
 * UTF-8, with line ends normalised to `\n`. NUL bytes mean a binary file, which is refused.
 */
export function decodeText(bytes: Uint8Array, fileName: string): string {
  if (bytes.includes(0)) {
    throw new TroupeError(
      'document_unreadable',
      `${fileName} looks binary (it contains NUL bytes), not text`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    text = new TextDecoder('windows-1252').decode(bytes);
  }
  return text.replace(/\r\n?/g, '\n');
}
