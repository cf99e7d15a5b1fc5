/** Collapses whitespace so one-line previews do not wrap on newlines. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `text` cut to at most `max` characters, the cut marked with `…` at the end. */
export function truncateEnd(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** `text` cut to its last `max` characters, the cut marked with `…` at the start (the latest words win). */
export function truncateStart(text: string, max: number): string {
  if (text.length <= max) return text;
  return `…${text.slice(text.length - Math.max(0, max - 1))}`;
}

/** Compact JSON for previews; never throws. */
export function compactJson(value: unknown): string {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return Object.prototype.toString.call(value);
  }
}

export function prettyJson(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A one-line `name(args…)` of at most `max` characters, the closing parenthesis kept. */
export function toolCallLine(name: string, args: unknown, max = 80): string {
  const rendered = compactJson(args ?? {});
  const full = `${name}(${rendered})`;
  if (full.length <= max) return full;
  const room = Math.max(0, max - name.length - 3);
  return `${name}(${rendered.slice(0, room)}…)`.slice(0, max);
}

/**
 * `text` cut to its last `max` characters on a word boundary, the cut marked with `…` at the start. A single
 * word longer than half the room is still cut inside (better than showing almost nothing).
 */
export function truncateStartAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - 1);
  const tail = text.slice(text.length - room);
  const before = text[text.length - room - 1] ?? ' ';
  if (/\s/.test(before) || /^\s/.test(tail)) return `…${tail.trimStart()}`;
  const space = tail.search(/\s/);
  if (space !== -1 && space <= room / 2) return `…${tail.slice(space).trimStart()}`;
  return `…${tail}`;
}

/** `text` cut to at most `max` characters on a word boundary, the cut marked with `…` at the end. */
export function truncateEndAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - 1);
  const head = text.slice(0, room);
  const after = text[room] ?? ' ';
  if (/\s/.test(after)) return `${head.trimEnd()}…`;
  const space = head.search(/\s\S*$/);
  if (space !== -1 && space >= room / 2) return `${head.slice(0, space).trimEnd()}…`;
  return `${head}…`;
}

/** The latest text as one line of at most `max` characters, never starting inside a word when avoidable. */
export function textLine(text: string, max = 80): string {
  return truncateStartAtWord(oneLine(text), max);
}
