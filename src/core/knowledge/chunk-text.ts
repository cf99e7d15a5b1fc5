import type { ChunkLocation } from '../records/knowledge.js';

export interface TextChunk extends ChunkLocation {
  /** Exactly `source.slice(start, end)`: offsets always point at the passage that was indexed. */
  text: string;
}

/** A part of the text chunked on its own, e.g. one PDF page; chunks never cross segments. */
export interface TextSegment {
  start: number;
  end: number;
  page: number | null;
}

export interface ChunkOptions {
  /** Longest chunk in characters; default 1200. */
  maxChars?: number;
  /** How much of the previous chunk the next one repeats inside one section; default 200, at most maxChars/4. */
  overlapChars?: number;
  /** Read `#` lines as Markdown headings (Markdown, and HTML converted to it); default false. */
  markdown?: boolean;
  /** Default: the whole text as one segment without a page. */
  segments?: readonly TextSegment[];
}

export const DEFAULT_CHUNK_CHARS = 1200;
export const DEFAULT_OVERLAP_CHARS = 200;

interface Section {
  start: number;
  end: number;
  /** Where the body starts (after the heading line), to skip sections that hold only a heading. */
  bodyStart: number;
  headingPath: string[];
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(```|~~~)/;

/** Splits a segment at its Markdown headings (outside code fences); each section keeps its heading path. */
function sections(text: string, segment: TextSegment, markdown: boolean): Section[] {
  if (!markdown)
    return [{ start: segment.start, end: segment.end, bodyStart: segment.start, headingPath: [] }];
  const result: Section[] = [];
  const stack: { level: number; title: string }[] = [];
  let current: Section = {
    start: segment.start,
    end: segment.end,
    bodyStart: segment.start,
    headingPath: [],
  };
  let fence: string | null = null;
  let lineStart = segment.start;
  while (lineStart < segment.end) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 || newline >= segment.end ? segment.end : newline;
    const line = text.slice(lineStart, lineEnd);
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch?.[1] !== undefined) {
      if (fence === null) fence = fenceMatch[1];
      else if (fenceMatch[1] === fence) fence = null;
    } else if (fence === null) {
      const heading = HEADING.exec(line);
      if (heading?.[1] !== undefined) {
        const level = heading[1].length;
        while (stack.length > 0 && (stack.at(-1)?.level ?? 0) >= level) stack.pop();
        stack.push({ level, title: heading[2] ?? '' });
        current.end = lineStart;
        result.push(current);
        current = {
          start: lineStart,
          end: segment.end,
          bodyStart: Math.min(lineEnd + 1, segment.end),
          headingPath: stack.map((entry) => entry.title).filter((title) => title !== ''),
        };
      }
    }
    lineStart = lineEnd + 1;
  }
  result.push(current);
  return result;
}

/** Positions in (from, to) where a unit starts, for one kind of boundary (paragraph, sentence, word). */
function boundaries(text: string, from: number, to: number, pattern: RegExp): number[] {
  // Scanning a slice keeps every call proportional to the window, never to the rest of the document.
  const window = text.slice(from, to);
  const found: number[] = [];
  for (const match of window.matchAll(new RegExp(pattern.source, 'g'))) {
    const position = from + match.index + match[0].length;
    if (position > from && position < to) found.push(position);
  }
  return found;
}

const PARAGRAPH = /\n[ \t]*\n\s*/;
const SENTENCE = /[.!?…。！？]["')\]]?\s+/;
const WORD = /\s+/;

/** The best place in (minimum, limit] to end a chunk: a paragraph, else a sentence, else a word end. */
function cutPoint(text: string, limit: number, minimum: number): number {
  for (const pattern of [PARAGRAPH, SENTENCE, WORD]) {
    const candidates = boundaries(text, minimum, limit + 1, pattern);
    const last = candidates.at(-1);
    if (last !== undefined) return last;
  }
  // No boundary at all: a hard cut, but never between the two halves of a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

/** Where the next chunk starts: the first unit start at or after `target`, before `cut`. */
function overlapStart(text: string, target: number, cut: number): number {
  for (const pattern of [PARAGRAPH, SENTENCE, WORD]) {
    const first = boundaries(text, Math.max(0, target - 1), cut, pattern).find(
      (position) => position >= target,
    );
    if (first !== undefined) return first;
  }
  return target;
}

function trimmed(text: string, start: number, end: number): { start: number; end: number } {
  let from = start;
  let to = end;
  while (from < to && /\s/.test(text[from] ?? '')) from += 1;
  while (to > from && /\s/.test(text[to - 1] ?? '')) to -= 1;
  return { start: from, end: to };
}

/**
 * Splits a document's text into passages for full-text search: by heading (Markdown), then by paragraph,
 * sentence or word so no chunk exceeds `maxChars`; consecutive chunks of one section overlap by about
 * `overlapChars`, so a passage cut in two is still found whole in one of them. Pure and deterministic.
 */
export function chunkText(text: string, options: ChunkOptions = {}): TextChunk[] {
  const maxChars = Math.max(50, Math.trunc(options.maxChars ?? DEFAULT_CHUNK_CHARS));
  const overlap = Math.max(
    0,
    Math.min(Math.trunc(options.overlapChars ?? DEFAULT_OVERLAP_CHARS), Math.floor(maxChars / 4)),
  );
  const segments = options.segments ?? [{ start: 0, end: text.length, page: null }];
  const chunks: TextChunk[] = [];
  const emit = (start: number, end: number, section: Section, page: number | null) => {
    const range = trimmed(text, start, end);
    if (range.end <= range.start) return;
    chunks.push({
      text: text.slice(range.start, range.end),
      heading_path: section.headingPath,
      page,
      ...range,
    });
  };
  for (const segment of segments) {
    for (const section of sections(text, segment, options.markdown === true)) {
      const body = trimmed(text, section.bodyStart, section.end);
      if (body.end <= body.start) continue;
      let start = trimmed(text, section.start, section.end).start;
      const end = section.end;
      while (start < end) {
        if (end - start <= maxChars) {
          emit(start, end, section, segment.page);
          break;
        }
        const cut = cutPoint(text, start + maxChars, start + Math.floor(maxChars / 2));
        emit(start, cut, section, segment.page);
        const next = overlap === 0 ? cut : overlapStart(text, cut - overlap, cut);
        // Always move forward, even through text without any boundary.
        start = trimmed(text, Math.max(next, start + 1), end).start;
      }
    }
  }
  return chunks;
}
