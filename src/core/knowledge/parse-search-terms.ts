/** Caps that keep one query cheap whatever the model or the user types. */
export const MAX_SEARCH_TERMS = 32;
const MAX_TERM_CHARS = 64;

// Letters and digits of any script; everything else (quotes, operators, brackets, `*`, `:`) separates terms.
const TERM = /[\p{L}\p{N}]+/gu;

/**
 * The words of a free-text query, lowercased and de-duplicated in order. Only these reach the full-text
 * engines, each one quoted or bound as a parameter by the adapter, so no user text is ever read as FTS5
 * or tsquery syntax (`"`, `OR`, `NEAR(`, `!`, `&`, `:*`…). An empty list means "nothing to search for".
 */
export function parseSearchTerms(query: string): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  // Lowercased before matching: lowercasing can add combining marks (`İ`), which are not letters.
  for (const match of query.normalize('NFKC').toLowerCase().matchAll(TERM)) {
    // By code points, so a cut never leaves half a surrogate pair.
    const term = Array.from(match[0]).slice(0, MAX_TERM_CHARS).join('');
    if (seen.has(term)) continue;
    seen.add(term);
    terms.push(term);
    if (terms.length === MAX_SEARCH_TERMS) break;
  }
  return terms;
}
