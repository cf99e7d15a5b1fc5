/** Elements whose content is never text for a reader: skipped whole, up to their closing tag. */
const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'title',
  'svg',
  'math',
  'iframe',
  'object',
  'canvas',
  'select',
]);
/** Elements that end a paragraph before and after them. */
const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'nav',
  'aside',
  'blockquote',
  'figure',
  'figcaption',
  'table',
  'form',
  'fieldset',
  'address',
  'details',
  'summary',
  'dl',
  'ul',
  'ol',
  'hr',
  'pre',
  'body',
  'html',
  'caption',
]);
const LINES = new Set(['tr', 'dt', 'dd', 'li', 'br']);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  deg: '°',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  sect: '§',
  para: '¶',
  times: '×',
  divide: '÷',
  plusmn: '±',
  frac12: '½',
  eacute: 'é',
  egrave: 'è',
  ecirc: 'ê',
  agrave: 'à',
  aacute: 'á',
  acirc: 'â',
  ccedil: 'ç',
  ouml: 'ö',
  uuml: 'ü',
  auml: 'ä',
  szlig: 'ß',
  ntilde: 'ñ',
  oacute: 'ó',
  iacute: 'í',
  uacute: 'ú',
  shy: '',
  zwj: '',
  zwnj: '',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
};

function decodeEntities(text: string): string {
  return text.replace(
    /&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});?/g,
    (whole, body: string) => {
      if (body.startsWith('#')) {
        const code =
          body[1] === 'x' || body[1] === 'X'
            ? Number.parseInt(body.slice(2), 16)
            : Number.parseInt(body.slice(1), 10);
        const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
        return valid ? String.fromCodePoint(code) : '\uFFFD';
      }
      return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
    },
  );
}

/** Collects text with paragraph and line breaks, never more than one blank line in a row. */
class TextBuilder {
  private parts: string[] = [];
  private tail = '\n\n';

  write(text: string): void {
    if (text === '') return;
    this.parts.push(text);
    this.tail = (this.tail + text).slice(-2);
  }

  /** Ensures the output ends with at least `count` newlines (1: a line break, 2: a paragraph break). */
  breaks(count: 1 | 2): void {
    const have = this.tail === '\n\n' ? 2 : this.tail.endsWith('\n') ? 1 : 0;
    if (have < count) this.write('\n'.repeat(count - have));
  }

  /** A word separator, unless one is there already. */
  space(): void {
    if (!this.atLineStart() && !this.tail.endsWith(' ')) this.write(' ');
  }

  atLineStart(): boolean {
    return this.tail.endsWith('\n');
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** The end of a tag starting at `from` (the index after its `>`), skipping `>` inside quoted attributes. */
function tagEnd(html: string, from: number): number {
  let quote: string | null = null;
  for (let index = from; index < html.length; index += 1) {
    const char = html[index];
    if (quote !== null) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '>') {
      return index + 1;
    }
  }
  return html.length;
}

/**
 * Readable text of an HTML document, for indexing: scripts, styles and other non-text elements are
 * dropped with their content, tags are removed, entities decoded, and the structure that matters for
 * chunking is kept in Markdown form (`#` headings, paragraphs, `- ` list items). Never executes or
 * fetches anything; malformed HTML degrades to text, it never throws.
 */
export function htmlToText(html: string): string {
  const out = new TextBuilder();
  let preDepth = 0;
  let headingDepth = 0;
  let index = 0;
  const text = (raw: string) => {
    let value = decodeEntities(raw);
    if (preDepth === 0) {
      value = value.replace(/\s+/g, ' ');
      if (out.atLineStart()) value = value.trimStart();
    }
    if (headingDepth > 0) value = value.replace(/\n/g, ' ');
    // A `#` opening a line of body text would read as a heading once the text is chunked as Markdown.
    if (headingDepth === 0 && out.atLineStart() && value.startsWith('#')) value = `\\${value}`;
    out.write(value);
  };
  while (index < html.length) {
    const open = html.indexOf('<', index);
    if (open === -1) {
      text(html.slice(index));
      break;
    }
    if (open > index) text(html.slice(index, open));
    if (html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4);
      index = close === -1 ? html.length : close + 3;
      continue;
    }
    const tag = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(open, open + 80));
    if (html[open + 1] === '!' || html[open + 1] === '?') {
      index = tagEnd(html, open);
      continue;
    }
    if (tag === null) {
      // A lone `<` is text.
      text('<');
      index = open + 1;
      continue;
    }
    const closing = tag[1] === '/';
    const name = (tag[2] ?? '').toLowerCase();
    index = tagEnd(html, open);
    const selfClosing = html[index - 2] === '/';
    if (!closing && SKIPPED.has(name) && !selfClosing) {
      const closer = new RegExp(`</${name}`, 'gi');
      closer.lastIndex = index;
      const end = closer.exec(html)?.index ?? -1;
      // Unterminated: everything after it is that element's content, so nothing of it is text.
      index = end === -1 ? html.length : tagEnd(html, end);
      continue;
    }
    const heading = /^h([1-6])$/.exec(name);
    if (heading) {
      out.breaks(2);
      if (closing) {
        headingDepth = Math.max(0, headingDepth - 1);
      } else {
        headingDepth += 1;
        out.write(`${'#'.repeat(Number(heading[1]))} `);
      }
      continue;
    }
    if (name === 'pre') preDepth = Math.max(0, preDepth + (closing ? -1 : 1));
    if (BLOCKS.has(name)) out.breaks(2);
    else if (LINES.has(name)) {
      if (headingDepth > 0) out.space();
      else out.breaks(1);
      if (name === 'li' && !closing) out.write('- ');
    } else if (name === 'td' || name === 'th') out.space();
  }
  return out
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
