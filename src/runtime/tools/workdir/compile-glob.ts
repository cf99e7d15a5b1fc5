/**
 * A small glob matcher (Node 20 has no fs.glob): `*` and `?` within one path segment, `**` across segments
 * (only as a whole segment; elsewhere it acts as `*`), `{a,b}` alternatives (nestable), `\` to escape.
 * Everything else is literal. Patterns match `/`-separated relative paths; dot files are not special.
 */
export function compileGlob(pattern: string): RegExp {
  return new RegExp(`^${translate(pattern, 0, false).source}$`);
}

/** Whether the pattern has any glob syntax; a pattern without any names one path. */
export function hasGlobSyntax(pattern: string): boolean {
  return /[*?{\\]/.test(pattern);
}

interface Translated {
  source: string;
  /** Index of the first character not consumed (a `,` or `}` that ends a brace alternative, or the end). */
  end: number;
}

function translate(pattern: string, start: number, inBraces: boolean): Translated {
  let source = '';
  let index = start;
  while (index < pattern.length) {
    const char = pattern.charAt(index);
    if (inBraces && (char === ',' || char === '}')) break;
    if (char === '*') {
      let end = index;
      while (pattern[end] === '*') end += 1;
      const startsSegment = index === 0 || pattern[index - 1] === '/' || (inBraces && index === start);
      const next = pattern[end];
      const endsSegment = next === undefined || next === '/' || (inBraces && (next === ',' || next === '}'));
      if (end - index >= 2 && startsSegment && endsSegment) {
        if (next === '/') {
          // `**/` is zero or more whole directories.
          source += '(?:[^/]*/)*';
          index = end + 1;
        } else {
          source += '.*';
          index = end;
        }
        continue;
      }
      source += '[^/]*';
      index = end;
      continue;
    }
    if (char === '?') {
      source += '[^/]';
      index += 1;
      continue;
    }
    if (char === '{') {
      const braces = translateBraces(pattern, index);
      if (braces) {
        source += braces.source;
        index = braces.end;
        continue;
      }
      // An unclosed brace is literal, as in bash.
    }
    if (char === '\\' && index + 1 < pattern.length) {
      source += escapeRegExp(pattern.charAt(index + 1));
      index += 2;
      continue;
    }
    source += escapeRegExp(char);
    index += 1;
  }
  return { source, end: index };
}

/** `{a,b}` starting at `open`, or undefined when the brace never closes. */
function translateBraces(pattern: string, open: number): Translated | undefined {
  const alternatives: string[] = [];
  let index = open + 1;
  for (;;) {
    const alternative = translate(pattern, index, true);
    alternatives.push(alternative.source);
    if (alternative.end >= pattern.length) return undefined;
    index = alternative.end + 1;
    if (pattern[alternative.end] === '}') return { source: `(?:${alternatives.join('|')})`, end: index };
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
