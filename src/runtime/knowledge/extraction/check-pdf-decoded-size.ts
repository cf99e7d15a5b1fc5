import { TroupeError } from '../../../core/errors.js';
import { PdfObjectReader, type PdfValue } from './pdf-object-reader.js';
import {
  ascii85Stream,
  asciiHexStream,
  brotliStream,
  CorruptStreamError,
  inflateStream,
  lzwStream,
  runLengthStream,
  type Sink,
} from './pdf-stream-decoders.js';

type Decoder = 'flate' | 'lzw' | 'ahx' | 'a85' | 'rl' | 'brotli' | 'image' | 'none';

/** Filter names as pdf.js reads them (abbreviations included); an unknown one leaves the data as it is. */
const DECODERS: Record<string, Decoder> = {
  Fl: 'flate',
  FlateDecode: 'flate',
  LZW: 'lzw',
  LZWDecode: 'lzw',
  AHx: 'ahx',
  ASCIIHexDecode: 'ahx',
  A85: 'a85',
  ASCII85Decode: 'a85',
  RL: 'rl',
  RunLengthDecode: 'rl',
  BrotliDecode: 'brotli',
  DCT: 'image',
  DCTDecode: 'image',
  JPX: 'image',
  JPXDecode: 'image',
  CCF: 'image',
  CCITTFaxDecode: 'image',
  JBIG2Decode: 'image',
};

class DecodedBudget {
  used = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly fileName: string,
  ) {}

  get remaining(): number {
    return Math.max(0, this.maxBytes - this.used);
  }

  charge(bytes: number): void {
    this.used += bytes;
    if (this.used <= this.maxBytes) return;
    throw new TroupeError(
      'document_too_large',
      `${this.fileName}: its compressed streams expand to more than ${Math.round(this.maxBytes / 1024 / 1024)} MiB; the limit for one PDF`,
      { details: { max_decoded_bytes: this.maxBytes } },
    );
  }
}

function unreadable(fileName: string, reason: string): TroupeError {
  return new TroupeError('document_unreadable', `${fileName} is not a PDF Troupe can read safely: ${reason}`);
}

/** The stream's filter names, references resolved as pdf.js resolves them (`/F` before `/Filter`). */
function filterNames(reader: PdfObjectReader, dict: Map<string, PdfValue>, fileName: string): string[] {
  const resolve = (value: PdfValue | undefined): PdfValue | undefined => {
    let current = value;
    for (let hops = 0; current?.kind === 'ref' && hops < 8; hops += 1) {
      const target = reader.object(current.num, current.gen);
      // A filter in an object stream, or nowhere: what pdf.js would decode cannot be told from here.
      if (target === undefined)
        throw unreadable(fileName, `stream filter ${current.num} ${current.gen} R cannot be checked`);
      current = target;
    }
    return current;
  };
  const filter = resolve(dict.get('F') ?? dict.get('Filter'));
  if (filter === undefined) return [];
  const items = filter.kind === 'array' ? filter.items.map(resolve) : [filter];
  return items.flatMap((item) => (item?.kind === 'name' ? [item.name] : []));
}

function earlyChangeOf(reader: PdfObjectReader, dict: Map<string, PdfValue>): number {
  const params = dict.get('DP') ?? dict.get('DecodeParms');
  const first = params?.kind === 'array' ? params.items[0] : params;
  const value = first?.kind === 'dict' ? first.entries.get('EarlyChange') : undefined;
  const resolved = value?.kind === 'ref' ? reader.object(value.num, value.gen) : value;
  return resolved?.kind === 'number' ? resolved.value : 1;
}

/** Where the stream's data ends: its direct or referenced /Length when `endstream` follows, else `endstream`. */
function streamEnd(reader: PdfObjectReader, dict: Map<string, PdfValue>, start: number): number {
  const { text } = reader;
  let length = dict.get('Length');
  if (length?.kind === 'ref') length = reader.object(length.num, length.gen);
  if (length?.kind === 'number' && Number.isInteger(length.value) && length.value >= 0) {
    const end = start + length.value;
    if (/^[\0\t\n\f\r ]*endstream/.test(text.slice(end, end + 32))) return end;
  }
  const found = text.indexOf('endstream', start);
  return found === -1 ? text.length : found;
}

/** Runs one stream's filters in order, each stage's output charged to the budget as it is produced. */
function decodeChain(
  data: Uint8Array,
  decoders: readonly Decoder[],
  budget: DecodedBudget,
  earlyChange: number,
): void {
  let input = data;
  for (const [index, decoder] of decoders.entries()) {
    // pdf.js decodes image data only to draw an image; text extraction draws none.
    if (decoder === 'image') return;
    if (decoder === 'none') continue;
    const keep = index < decoders.length - 1;
    const chunks: Uint8Array[] = [];
    const sink: Sink = (chunk) => {
      budget.charge(chunk.length);
      if (keep) chunks.push(chunk);
    };
    if (decoder === 'flate') inflateStream(input, sink);
    else if (decoder === 'lzw') lzwStream(input, sink, earlyChange);
    else if (decoder === 'ahx') asciiHexStream(input, sink);
    else if (decoder === 'a85') ascii85Stream(input, sink);
    else if (decoder === 'rl') runLengthStream(input, sink);
    else brotliStream(input, sink, budget.remaining);
    if (!keep) return;
    input = Buffer.concat(chunks);
  }
}

/**
 * Refuses a PDF whose streams decompress to more than `maxDecodedBytes` in all, before pdf.js opens it:
 * every object's stream is decoded through its filters (Flate, LZW, ASCIIHex, ASCII85, RunLength, Brotli,
 * in any chain, abbreviations and indirect names included) and only counted, never kept whole, so a
 * 1 MiB file that inflates to 1 GiB stops after the first `maxDecodedBytes`. A corrupt compressed stream,
 * which pdf.js would keep decoding, and a filter hidden where this reader cannot look, are refused too.
 * What it cannot see (encrypted streams, an image codec on a non-image stream) is left to the extraction
 * worker's memory and time caps (docs: README, "Knowledge sources").
 */
export function checkPdfDecodedSize(bytes: Uint8Array, fileName: string, maxDecodedBytes: number): void {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const reader = new PdfObjectReader(text);
  const budget = new DecodedBudget(maxDecodedBytes, fileName);
  const headers = reader.headers();
  let skipTo: number | undefined;
  for (let header = headers.next(); header !== undefined; header = headers.next(skipTo)) {
    skipTo = undefined;
    const { value, end } = reader.valueAt(header.valueStart);
    if (value.kind !== 'dict') continue;
    const start = reader.streamStart(end);
    if (start === undefined) continue;
    const stop = streamEnd(reader, value.entries, start);
    // The data is not searched for headers: binary bytes can spell `1 0 obj` by chance.
    skipTo = stop;
    const decoders = filterNames(reader, value.entries, fileName).map((name) => DECODERS[name] ?? 'none');
    try {
      decodeChain(bytes.subarray(start, stop), decoders, budget, earlyChangeOf(reader, value.entries));
    } catch (error) {
      if (error instanceof CorruptStreamError) throw unreadable(fileName, error.message);
      throw error;
    }
  }
}
