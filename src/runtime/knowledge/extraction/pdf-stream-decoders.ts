import { brotliDecompressSync } from 'node:zlib';
import { Inflate } from 'fflate';

/** Receives a decoder's output as it is produced; throws to stop decoding (the budget is spent). */
export type Sink = (chunk: Uint8Array) => void;

/** A stream pdf.js would stop reading too early to matter is never refused; this one it would read on. */
export class CorruptStreamError extends Error {}

/** Compressed input is fed in slices this small, so one push can never inflate past the budget by much. */
const SLICE = 4 * 1024;
const CHUNK = 64 * 1024;

/** Collects bytes into fixed chunks handed to `sink`, so byte-wise decoders cost no call per byte. */
class ChunkWriter {
  private buffer = new Uint8Array(CHUNK);
  private length = 0;

  constructor(private readonly sink: Sink) {}

  byte(value: number): void {
    this.buffer[this.length] = value;
    this.length += 1;
    if (this.length === CHUNK) this.flush();
  }

  flush(): void {
    if (this.length === 0) return;
    this.sink(this.buffer.slice(0, this.length));
    this.length = 0;
  }
}

/**
 * FlateDecode: the zlib header checked as pdf.js checks it (a bad one: pdf.js reads nothing), then raw
 * inflate, fed slice by slice. Running out of input ends the stream (a truncated file); any other error is
 * corrupt data, which pdf.js tolerates and keeps decoding, so it cannot be measured here.
 */
export function inflateStream(input: Uint8Array, sink: Sink): void {
  if (input.length < 2) return;
  const cmf = input[0] ?? 0;
  const flg = input[1] ?? 0;
  if ((cmf & 0x0f) !== 0x08 || ((cmf << 8) + flg) % 31 !== 0 || (flg & 0x20) !== 0) return;
  let finished = false;
  const inflate = new Inflate((chunk, final) => {
    if (chunk.length > 0) sink(chunk);
    if (final) finished = true;
  });
  try {
    for (let from = 2; from < input.length && !finished; from += SLICE) {
      inflate.push(input.subarray(from, Math.min(input.length, from + SLICE)), false);
    }
    if (!finished) inflate.push(new Uint8Array(0), true);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // 0: unexpected end of data; 4: data after the last block (the Adler-32 and whatever follows).
    if (code === 0 || code === 4) return;
    if (typeof code === 'number') throw new CorruptStreamError(`invalid Flate data (${String(error)})`);
    throw error;
  }
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if ((code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66)) return (code & 0x0f) + 9;
  return -1;
}

/** ASCIIHexDecode: hex digit pairs up to `>`, anything else skipped, as pdf.js reads it. */
export function asciiHexStream(input: Uint8Array, sink: Sink): void {
  const out = new ChunkWriter(sink);
  let high = -1;
  for (const code of input) {
    if (code === 0x3e) break;
    const value = hexValue(code);
    if (value < 0) continue;
    if (high < 0) high = value;
    else {
      out.byte((high << 4) | value);
      high = -1;
    }
  }
  if (high >= 0) out.byte(high << 4);
  out.flush();
}

/** ASCII85Decode: groups of five, `z` for four zero bytes, up to `~`. */
export function ascii85Stream(input: Uint8Array, sink: Sink): void {
  const out = new ChunkWriter(sink);
  const group: number[] = [];
  const emit = (digits: number[], bytes: number) => {
    let value = 0;
    for (let index = 0; index < 5; index += 1) value = value * 85 + (digits[index] ?? 84);
    for (let index = 0; index < bytes; index += 1) out.byte((value >>> (24 - index * 8)) & 0xff);
  };
  for (const code of input) {
    if (code === 0x7e) break;
    if (code === 0x7a && group.length === 0) {
      for (let index = 0; index < 4; index += 1) out.byte(0);
    } else if (code >= 0x21 && code <= 0x75) {
      group.push(code - 0x21);
      if (group.length === 5) {
        emit(group, 4);
        group.length = 0;
      }
    }
  }
  if (group.length > 1) emit(group, group.length - 1);
  out.flush();
}

/** RunLengthDecode: a length byte, then literal bytes (0–127) or one repeated byte (129–255); 128 ends. */
export function runLengthStream(input: Uint8Array, sink: Sink): void {
  const out = new ChunkWriter(sink);
  let position = 0;
  while (position < input.length) {
    const length = input[position] ?? 128;
    position += 1;
    if (length === 128) break;
    if (length < 128) {
      for (let index = 0; index <= length && position < input.length; index += 1, position += 1)
        out.byte(input[position] ?? 0);
    } else {
      const value = input[position] ?? 0;
      position += 1;
      for (let index = 0; index < 257 - length; index += 1) out.byte(value);
    }
  }
  out.flush();
}

/**
 * LZWDecode as pdf.js decodes it (the same table, the same tolerance of codes past the table's end): 9- to
 * 12-bit codes, 256 clears the table, 257 ends; `earlyChange` as in the stream's DecodeParms (default 1).
 */
export function lzwStream(input: Uint8Array, sink: Sink, earlyChange = 1): void {
  const out = new ChunkWriter(sink);
  const values = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  const previousCodes = new Uint16Array(4096);
  const sequence = new Uint8Array(4096);
  for (let code = 0; code < 256; code += 1) {
    values[code] = code;
    lengths[code] = 1;
  }
  let sequenceLength = 0;
  let nextCode = 258;
  let codeLength = 9;
  let previous = 0;
  let cached = 0;
  let cachedBits = 0;
  let position = 0;
  for (;;) {
    while (cachedBits < codeLength && position < input.length) {
      cached = ((cached << 8) | (input[position] ?? 0)) & 0xffffff;
      cachedBits += 8;
      position += 1;
    }
    if (cachedBits < codeLength) break;
    cachedBits -= codeLength;
    const code = (cached >>> cachedBits) & ((1 << codeLength) - 1);
    const hasPrevious = sequenceLength > 0;
    if (code < 256) {
      sequence[0] = code;
      sequenceLength = 1;
    } else if (code >= 258) {
      if (code < nextCode) {
        sequenceLength = lengths[code] ?? 0;
        for (let index = sequenceLength - 1, cursor = code; index >= 0; index -= 1) {
          sequence[index] = values[cursor] ?? 0;
          cursor = previousCodes[cursor] ?? 0;
        }
      } else {
        sequence[sequenceLength] = sequence[0] ?? 0;
        sequenceLength += 1;
      }
    } else if (code === 256) {
      codeLength = 9;
      nextCode = 258;
      sequenceLength = 0;
      continue;
    } else break;
    if (hasPrevious) {
      previousCodes[nextCode] = previous;
      lengths[nextCode] = (lengths[previous] ?? 0) + 1;
      values[nextCode] = sequence[0] ?? 0;
      nextCode += 1;
      const limit = nextCode + earlyChange;
      if ((limit & (limit - 1)) === 0) codeLength = Math.min(Math.log2(limit) + 1, 12) | 0;
    }
    previous = code;
    for (let index = 0; index < sequenceLength; index += 1) out.byte(sequence[index] ?? 0);
  }
  out.flush();
}

/** BrotliDecode (pdf.js reads it): Node's decoder, stopped at the bytes still allowed. */
export function brotliStream(input: Uint8Array, sink: Sink, allowedBytes: number): void {
  let output: Buffer;
  try {
    output = brotliDecompressSync(input, { maxOutputLength: Math.max(1, allowedBytes + 1) });
  } catch (error) {
    // Past the allowance: report one byte more than allowed, which spends the budget.
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      sink(new Uint8Array(allowedBytes + 1));
      return;
    }
    return;
  }
  sink(output);
}
