/** A PDF value, as far as the stream check needs one: names, numbers, references, arrays, dictionaries. */
export type PdfValue =
  | { kind: 'name'; name: string }
  | { kind: 'number'; value: number }
  | { kind: 'ref'; num: number; gen: number }
  | { kind: 'array'; items: PdfValue[] }
  | { kind: 'dict'; entries: Map<string, PdfValue> }
  | { kind: 'other' };

/** An object's header (`12 0 obj`), pointing just past it. */
export interface PdfObjectHeader {
  num: number;
  gen: number;
  valueStart: number;
}

interface Token {
  kind: 'open-dict' | 'close-dict' | 'open-array' | 'close-array' | 'name' | 'word' | 'other' | 'end';
  text: string;
  end: number;
}

const OTHER: PdfValue = { kind: 'other' };
/** Deeper nesting is read as an opaque value: no stream dictionary needs it, and recursion stays shallow. */
const MAX_DEPTH = 32;
const HEADER = /(?<![0-9])(\d{1,10})[\0\t\n\f\r ]+(\d{1,5})[\0\t\n\f\r ]+obj(?![A-Za-z0-9])/g;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;

function isWhite(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0x0c || code === 0x00;
}

function isDelimiter(code: number): boolean {
  // ( ) < > [ ] { } / %
  return (
    code === 0x28 ||
    code === 0x29 ||
    code === 0x3c ||
    code === 0x3e ||
    code === 0x5b ||
    code === 0x5d ||
    code === 0x7b ||
    code === 0x7d ||
    code === 0x2f ||
    code === 0x25
  );
}

/**
 * A lenient reader of a PDF's objects over its bytes as a latin1 string (one char per byte): the lexical
 * rules pdf.js follows (comments, `#xx` name escapes, nested literal strings), never throwing on garbage —
 * what it cannot read is `other`. It reads values, not whole files: the stream check walks the object
 * headers and looks up indirect references by number.
 */
export class PdfObjectReader {
  private index: Map<string, number> | undefined;

  constructor(readonly text: string) {}

  /** Every `N G obj` header from `from` on, in file order (the caller may skip ahead by setting `lastIndex`). */
  headers(): { next(skipTo?: number): PdfObjectHeader | undefined } {
    const pattern = new RegExp(HEADER.source, 'g');
    return {
      next: (skipTo?: number) => {
        if (skipTo !== undefined && skipTo > pattern.lastIndex) pattern.lastIndex = skipTo;
        const match = pattern.exec(this.text);
        if (match === null) return undefined;
        return { num: Number(match[1]), gen: Number(match[2]), valueStart: pattern.lastIndex };
      },
    };
  }

  /** The value of object `num gen` (its last definition, as an updated file means), or undefined. */
  object(num: number, gen: number): PdfValue | undefined {
    if (this.index === undefined) {
      this.index = new Map();
      const headers = this.headers();
      for (let header = headers.next(); header !== undefined; header = headers.next()) {
        this.index.set(`${header.num} ${header.gen}`, header.valueStart);
      }
    }
    const start = this.index.get(`${num} ${gen}`);
    return start === undefined ? undefined : this.valueAt(start).value;
  }

  /** The value starting at `offset` and where it ends. */
  valueAt(offset: number): { value: PdfValue; end: number } {
    return this.value(this.token(offset), 0);
  }

  /** Past the `stream` keyword and its end of line when one follows `offset`, else undefined. */
  streamStart(offset: number): number | undefined {
    const start = this.skipSpace(offset);
    if (!this.text.startsWith('stream', start)) return undefined;
    let position = start + 'stream'.length;
    if (this.text.charCodeAt(position) === 0x0d) position += 1;
    if (this.text.charCodeAt(position) === 0x0a) position += 1;
    return position;
  }

  private value(token: Token, depth: number): { value: PdfValue; end: number } {
    switch (token.kind) {
      case 'name':
        return { value: { kind: 'name', name: token.text }, end: token.end };
      case 'open-array':
        return this.array(token.end, depth + 1);
      case 'open-dict':
        return this.dict(token.end, depth + 1);
      case 'word': {
        if (!NUMBER.test(token.text)) return { value: OTHER, end: token.end };
        // `num gen R` is a reference; a lone number is a number.
        const gen = this.token(token.end);
        if (gen.kind === 'word' && /^\d+$/.test(gen.text) && /^\d+$/.test(token.text)) {
          const r = this.token(gen.end);
          if (r.kind === 'word' && r.text === 'R') {
            return { value: { kind: 'ref', num: Number(token.text), gen: Number(gen.text) }, end: r.end };
          }
        }
        return { value: { kind: 'number', value: Number(token.text) }, end: token.end };
      }
      case 'close-array':
      case 'close-dict':
      case 'other':
      case 'end':
        return { value: OTHER, end: token.end };
    }
  }

  private array(offset: number, depth: number): { value: PdfValue; end: number } {
    const items: PdfValue[] = [];
    let token = this.token(offset);
    while (token.kind !== 'close-array' && token.kind !== 'end') {
      if (depth > MAX_DEPTH) {
        token = this.token(token.end);
        continue;
      }
      const item = this.value(token, depth);
      items.push(item.value);
      token = this.token(item.end);
    }
    return { value: depth > MAX_DEPTH ? OTHER : { kind: 'array', items }, end: token.end };
  }

  private dict(offset: number, depth: number): { value: PdfValue; end: number } {
    const entries = new Map<string, PdfValue>();
    let token = this.token(offset);
    while (token.kind !== 'close-dict' && token.kind !== 'end') {
      if (token.kind !== 'name' || depth > MAX_DEPTH) {
        token = this.token(token.end);
        continue;
      }
      const item = this.value(this.token(token.end), depth);
      entries.set(token.text, item.value);
      token = this.token(item.end);
    }
    return { value: depth > MAX_DEPTH ? OTHER : { kind: 'dict', entries }, end: token.end };
  }

  private skipSpace(offset: number): number {
    const { text } = this;
    let position = offset;
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code === 0x25) {
        while (position < text.length && text[position] !== '\n' && text[position] !== '\r') position += 1;
      } else if (isWhite(code)) position += 1;
      else break;
    }
    return position;
  }

  private token(offset: number): Token {
    const { text } = this;
    const start = this.skipSpace(offset);
    if (start >= text.length) return { kind: 'end', text: '', end: text.length };
    const code = text.charCodeAt(start);
    if (text.startsWith('<<', start)) return { kind: 'open-dict', text: '<<', end: start + 2 };
    if (text.startsWith('>>', start)) return { kind: 'close-dict', text: '>>', end: start + 2 };
    if (code === 0x5b) return { kind: 'open-array', text: '[', end: start + 1 };
    if (code === 0x5d) return { kind: 'close-array', text: ']', end: start + 1 };
    if (code === 0x28) return { kind: 'other', text: '', end: this.literalStringEnd(start) };
    if (code === 0x3c) {
      const close = text.indexOf('>', start);
      return { kind: 'other', text: '', end: close === -1 ? text.length : close + 1 };
    }
    if (code === 0x2f) {
      let end = start + 1;
      while (end < text.length && !isWhite(text.charCodeAt(end)) && !isDelimiter(text.charCodeAt(end)))
        end += 1;
      const name = text
        .slice(start + 1, end)
        .replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return { kind: 'name', text: name, end };
    }
    if (isDelimiter(code)) return { kind: 'other', text: '', end: start + 1 };
    let end = start;
    while (end < text.length && !isWhite(text.charCodeAt(end)) && !isDelimiter(text.charCodeAt(end)))
      end += 1;
    return { kind: 'word', text: text.slice(start, end), end };
  }

  /** Past the `)` that closes the literal string opening at `start` (nested parentheses, `\` escapes). */
  private literalStringEnd(start: number): number {
    const { text } = this;
    let depth = 0;
    for (let position = start; position < text.length; position += 1) {
      const char = text[position];
      if (char === '\\') position += 1;
      else if (char === '(') depth += 1;
      else if (char === ')') {
        depth -= 1;
        if (depth === 0) return position + 1;
      }
    }
    return text.length;
  }
}
