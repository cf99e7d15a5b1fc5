import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_TERMS, parseSearchTerms } from './parse-search-terms.js';

describe('parseSearchTerms', () => {
  it('keeps the words, lowercased, once each, in order', () => {
    expect(parseSearchTerms('How do we rotate API tokens? API!')).toEqual([
      'how',
      'do',
      'we',
      'rotate',
      'api',
      'tokens',
    ]);
  });

  it('turns FTS5 and tsquery syntax into plain words', () => {
    expect(parseSearchTerms('"unterminated NEAR(a b) OR c* & !d | e:* (f) -g ^h {i} col:j')).toEqual([
      'unterminated',
      'near',
      'a',
      'b',
      'or',
      'c',
      'd',
      'e',
      'f',
      'g',
      'h',
      'i',
      'col',
      'j',
    ]);
  });

  it('keeps letters and digits of every script and splits on punctuation', () => {
    expect(parseSearchTerms('café Zürich 東京 v2.1 ＡＢＣ')).toEqual([
      'café',
      'zürich',
      '東京',
      'v2',
      '1',
      'abc',
    ]);
  });

  it('answers nothing for text without words', () => {
    expect(parseSearchTerms('')).toEqual([]);
    expect(parseSearchTerms(' "" ** && || () ')).toEqual([]);
  });

  it('caps the number and the length of terms', () => {
    const many = Array.from({ length: 100 }, (_, index) => `w${index}`).join(' ');
    expect(parseSearchTerms(many)).toHaveLength(MAX_SEARCH_TERMS);
    expect(parseSearchTerms('x'.repeat(500))[0]).toHaveLength(64);
  });

  it('never yields a combining mark or half a surrogate pair', () => {
    expect(parseSearchTerms('İstanbul')).toEqual(['i', 'stanbul']);
    expect(parseSearchTerms('😀'.repeat(3) + '𝐀'.repeat(70))).toEqual(['a'.repeat(64)]);
  });

  it('only ever yields non-empty runs of letters and digits', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        for (const term of parseSearchTerms(text)) expect(term).toMatch(/^[\p{L}\p{N}]{1,64}$/u);
      }),
    );
  });
});
