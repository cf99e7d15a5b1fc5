import { constants, deflateRawSync } from 'node:zlib';

/**
 * A minimal valid PDF written by hand (PDF 1.4, one Helvetica font, uncompressed content streams, a
 * correct xref table): each page shows its lines of text top-down. For tests of PDF extraction.
 */
export function makePdf(pages: readonly (readonly string[])[]): Uint8Array {
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  const catalog = add('');
  const pagesObject = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids: number[] = [];
  const escape = (text: string) => text.replace(/[\\()]/g, (char) => `\\${char}`);
  for (const lines of pages) {
    const stream = `BT /F1 12 Tf 72 720 Td 14 TL ${lines.map((line) => `(${escape(line)}) Tj T*`).join(' ')} ET`;
    const content = add(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesObject} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObject} 0 R >>`;
  objects[pagesObject - 1] =
    `<< /Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

/**
 * A zlib stream of `mebibytes` MiB of zero bytes, about 1 KiB per MiB: one MiB deflated once, ending on a
 * byte boundary without the final-block bit (a sync flush), repeated, then an empty final block and the
 * Adler-32 of the whole. Nothing of that size is ever held in memory to build it.
 */
export function zerosZlibStream(mebibytes: number): Uint8Array {
  const mib = 1024 * 1024;
  const fragment = deflateRawSync(Buffer.alloc(mib), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const total = mebibytes * mib;
  // Adler-32 of n zero bytes: a stays 1, b adds a once per byte.
  const adler = ((total % 65521) * 65536 + 1) >>> 0;
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler);
  return Buffer.concat([
    Buffer.from([0x78, 0x9c]),
    ...Array.from({ length: mebibytes }, () => fragment),
    Buffer.from([0x03, 0x00]),
    trailer,
  ]);
}

/**
 * A valid one-page PDF whose content stream is `stream` under the given `/Filter` value (a decompression
 * bomb when `stream` is `zerosZlibStream(...)`), with any `extraObjects` appended as objects 5, 6, ...
 */
export function makePdfWithStream(
  stream: Uint8Array,
  filter = '/FlateDecode',
  extraObjects: readonly string[] = [],
): Uint8Array {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (part: Buffer) => {
    parts.push(part);
    length += part.length;
  };
  push(Buffer.from('%PDF-1.4\n', 'latin1'));
  const object = (number: number, body: Buffer[]) => {
    offsets[number - 1] = length;
    push(Buffer.from(`${number} 0 obj\n`, 'latin1'));
    for (const part of body) push(part);
    push(Buffer.from('\nendobj\n', 'latin1'));
  };
  object(1, [Buffer.from('<< /Type /Catalog /Pages 2 0 R >>', 'latin1')]);
  object(2, [Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', 'latin1')]);
  object(3, [
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>', 'latin1'),
  ]);
  object(4, [
    Buffer.from(`<< /Length ${stream.length} /Filter ${filter} >>\nstream\n`, 'latin1'),
    Buffer.from(stream),
    Buffer.from('\nendstream', 'latin1'),
  ]);
  extraObjects.forEach((body, index) => object(5 + index, [Buffer.from(body, 'latin1')]));
  const xref = length;
  const count = offsets.length + 1;
  push(
    Buffer.from(
      `xref\n0 ${count}\n0000000000 65535 f \n` +
        offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('') +
        `trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
      'latin1',
    ),
  );
  return new Uint8Array(Buffer.concat(parts));
}
