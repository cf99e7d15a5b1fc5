/**
 * How knowledge search ranks a passage, the same on every storage engine (README, "Knowledge sources"):
 * Okapi BM25 over the chunks of the sources searched, and nothing else, so a user's scores never depend on
 * a document the user may not read. For a passage D and the query's words t:
 *
 *   score(D) = Σ_t idf(t) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · |D| / avgdl))
 *   idf(t)   = ln(1 + (N − df + ½) / (df + ½))
 *
 * tf: occurrences of t in D, a heading word counting `headingWeight` times; |D|: D's length in words
 * (`passageLength`); N, avgdl and df: the number of chunks, their mean length, and the chunks holding t,
 * all counted over the searched sources only. This idf (Lucene's) stays positive, so a word found in
 * most of a small source still ranks a passage above one without it.
 */
export const BM25 = { k1: 1.2, b: 0.75, headingWeight: 2 } as const;

// Runs of letters and digits: the words `parseSearchTerms` looks for and the full-text indexes count.
const WORD = /[\p{L}\p{N}]+/gu;

/** A passage's length in words, headings included: what `|D|` and `avgdl` of the ranking count. */
export function passageLength(headingPath: readonly string[], text: string): number {
  let words = 0;
  for (const title of headingPath) words += title.match(WORD)?.length ?? 0;
  return words + (text.match(WORD)?.length ?? 0);
}
