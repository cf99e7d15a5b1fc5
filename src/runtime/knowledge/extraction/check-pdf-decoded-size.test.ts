import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TroupeError, type ErrorCode } from '../../../core/errors.js';
import { makePdf, makePdfWithStream, zerosZlibStream } from '../../../../test/helpers/knowledge/make-pdf.js';
import { pdfToText } from '../pdf-to-text.js';
import { checkPdfDecodedSize } from './check-pdf-decoded-size.js';
import { lzwStream } from './pdf-stream-decoders.js';

const MIB = 1024 * 1024;

function refusal(bytes: Uint8Array, maxBytes = MIB): { code: ErrorCode; message: string } | undefined {
  try {
    checkPdfDecodedSize(bytes, 'x.pdf', maxBytes);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(TroupeError);
    return { code: (error as TroupeError).code, message: (error as TroupeError).message };
  }
}

const hex = (bytes: Uint8Array) => `${Buffer.from(bytes).toString('hex')}>`;

describe('checkPdfDecodedSize', () => {
  it('lets a PDF through whose compressed content stays under the limit, and pdf.js reads it', async () => {
    const content = Buffer.from('BT /F1 12 Tf 72 720 Td (Compressed words) Tj ET', 'latin1');
    const pdf = makePdfWithStream(deflateSync(content));
    expect(refusal(pdf)).toBeUndefined();
    expect(refusal(makePdf([['Plain words']]))).toBeUndefined();
    const text = await pdfToText(pdf, 'x.pdf', { maxPages: 5, maxTextChars: 1000, maxDecodedBytes: MIB });
    expect(text.pages).toEqual(['Compressed words']);
  });

  it('refuses a Flate bomb once past the limit, without inflating the rest', () => {
    // 4 GiB of zeros in 4 MiB: inflating it all would outlast the test's timeout many times over.
    const pdf = makePdfWithStream(zerosZlibStream(4096));
    expect(pdf.length).toBeLessThan(5 * MIB);
    expect(refusal(pdf)).toEqual({
      code: 'document_too_large',
      message: 'x.pdf: its compressed streams expand to more than 1 MiB; the limit for one PDF',
    });
  });

  it.each([
    ['an abbreviated filter name', '/Fl', []],
    ['a name spelled with #xx escapes', '/Fl#61te#44ecode', []],
    ['a filter named by reference', '5 0 R', ['/FlateDecode']],
    ['a filter array by reference', '5 0 R', ['[/FlateDecode]']],
  ] as const)('sees through %s', (_case, filter, extra) => {
    expect(refusal(makePdfWithStream(zerosZlibStream(8), filter, extra))?.code).toBe('document_too_large');
  });

  it('decodes filter chains: hex-encoded, and compressed twice', () => {
    const bomb = zerosZlibStream(8);
    const hexed = new Uint8Array(Buffer.from(hex(bomb), 'latin1'));
    expect(refusal(makePdfWithStream(hexed, '[/AHx /Fl]'))?.code).toBe('document_too_large');
    expect(refusal(makePdfWithStream(deflateSync(bomb), '[/FlateDecode /FlateDecode]'))?.code).toBe(
      'document_too_large',
    );
    // The outer layer alone is small: only the second stage crosses the limit.
    expect(refusal(makePdfWithStream(deflateSync(bomb), '/FlateDecode'))).toBeUndefined();
  });

  it('counts RunLength and LZW output too', () => {
    // 129 then a byte: that byte 128 times; 16,385 of those pairs are just over 2 MiB.
    const runs = new Uint8Array(2 * 16_385).map((_, index) => (index % 2 === 0 ? 129 : 0));
    expect(refusal(makePdfWithStream(runs, '/RunLengthDecode'))?.code).toBe('document_too_large');
    // The example of the PDF reference (7.4.4.2): 9-bit codes for 45 45 45 45 45 65 45 45 45 66.
    const decoded: number[] = [];
    lzwStream(new Uint8Array([0x80, 0x0b, 0x60, 0x50, 0x22, 0x0c, 0x0c, 0x85, 0x01]), (chunk) =>
      decoded.push(...chunk),
    );
    expect(decoded).toEqual([45, 45, 45, 45, 45, 65, 45, 45, 45, 66]);
  });

  it('refuses what it cannot measure: corrupt Flate data, a filter it cannot find', () => {
    // A zlib header, then a block of the reserved type 3.
    const corrupt = new Uint8Array([0x78, 0x9c, 0x07, 0x00]);
    expect(refusal(makePdfWithStream(corrupt))?.code).toBe('document_unreadable');
    expect(refusal(makePdfWithStream(zerosZlibStream(1), '9 0 R'))).toEqual({
      code: 'document_unreadable',
      message: 'x.pdf is not a PDF Troupe can read safely: stream filter 9 0 R cannot be checked',
    });
  });

  it('leaves image codecs to the image they draw, and a bad zlib header to nothing', () => {
    expect(refusal(makePdfWithStream(zerosZlibStream(8), '[/FlateDecode /DCTDecode]'))?.code).toBe(
      'document_too_large',
    );
    expect(refusal(makePdfWithStream(zerosZlibStream(8), '[/DCTDecode /FlateDecode]'))).toBeUndefined();
    const badHeader = zerosZlibStream(8);
    badHeader[1] = 0x9d;
    expect(refusal(makePdfWithStream(badHeader))).toBeUndefined();
  });
});
