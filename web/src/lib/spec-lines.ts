import type { BuildWarning } from './build-report.ts';

export interface SpecRange {
  index: number;
  /** Offsets in the text: the element's first and one-past-last character. */
  start: number;
  end: number;
}

/**
 * Where each top-level element of a JSON array text lies. A small scanner (strings and escapes aware)
 * rather than a parser: the text is the user's, and it is read even when some element is odd.
 */
export function specRanges(text: string): SpecRange[] {
  const ranges: SpecRange[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let offset = 0; offset < text.length; offset++) {
    const character = text[offset] ?? '';
    if (inString) {
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
      continue;
    }
    if (depth === 1 && start === -1 && !/[\s,\]]/.test(character)) start = offset;
    if (character === '"') inString = true;
    else if (character === '[' || character === '{') depth += 1;
    else if (character === ']' || character === '}') {
      depth -= 1;
      if (depth === 0 && start !== -1) {
        ranges.push({ index: ranges.length, start, end: offset });
        start = -1;
      }
    } else if (character === ',' && depth === 1 && start !== -1) {
      ranges.push({ index: ranges.length, start, end: offset });
      start = -1;
    }
  }
  return ranges.map((range) => ({ ...range, end: trimEnd(text, range.start, range.end) }));
}

function trimEnd(text: string, start: number, end: number): number {
  let last = end;
  while (last > start && /\s/.test(text[last - 1] ?? '')) last -= 1;
  return last;
}

/** 1-based line of an offset. */
export function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset && index < text.length; index++) if (text[index] === '\n') line += 1;
  return line;
}

const TOOL_CODES = new Set(['no_tools', 'tools_not_array']);

/**
 * The line a report entry points at: the offending value inside its spec (a tool name, a field value), the
 * `tools` key for tool-set problems, else the spec's first line. Null for agent-level entries.
 */
export function warningLine(
  text: string,
  warning: Pick<BuildWarning, 'specIndex' | 'reason' | 'value'>,
): number | null {
  if (warning.specIndex === null) return null;
  const range = specRanges(text)[warning.specIndex];
  if (!range) return null;
  const body = text.slice(range.start, range.end);
  const needles = [
    ...(TOOL_CODES.has(warning.reason) ? ['"tools"'] : []),
    ...(warning.value !== '' ? [JSON.stringify(warning.value), warning.value] : []),
  ];
  for (const needle of needles) {
    const found = body.indexOf(needle);
    if (found !== -1) return lineOfOffset(text, range.start + found);
  }
  return lineOfOffset(text, range.start);
}
