import { describe, expect, it } from 'vitest';
import { diffText, type TextDiff } from './text-diff.js';

const side = (diff: TextDiff, op: 'insert' | 'delete') =>
  diff.parts
    .filter((part) => part.op === 'equal' || part.op === op)
    .map((part) => part.text)
    .join('');

describe('diffText', () => {
  it('diffs word by word and gives both texts back exactly', () => {
    const diff = diffText('The cat sat on the mat.\n', 'The dog sat on the red mat.\n');
    expect(diff.unit).toBe('word');
    expect(diff.parts).toEqual([
      { op: 'equal', text: 'The ' },
      { op: 'delete', text: 'cat ' },
      { op: 'insert', text: 'dog ' },
      { op: 'equal', text: 'sat on the ' },
      { op: 'insert', text: 'red ' },
      { op: 'equal', text: 'mat.\n' },
    ]);
    expect(side(diff, 'delete')).toBe('The cat sat on the mat.\n');
    expect(side(diff, 'insert')).toBe('The dog sat on the red mat.\n');
  });

  it('answers one equal part for equal texts and nothing for two empty ones', () => {
    expect(diffText('same words', 'same words').parts).toEqual([{ op: 'equal', text: 'same words' }]);
    expect(diffText('', '').parts).toEqual([]);
    expect(diffText('', 'new').parts).toEqual([{ op: 'insert', text: 'new' }]);
  });

  it('falls back to lines, then to the whole text, for outputs too long to compare word by word', () => {
    const long = (tag: string, count: number) =>
      Array.from({ length: count }, (_, index) => `${tag} line ${index} with words\n`).join('');
    const byLine = diffText(long('a', 600), `${long('a', 600)}one more\n`);
    expect(byLine.unit).toBe('line');
    expect(byLine.parts.at(-1)).toEqual({ op: 'insert', text: 'one more\n' });
    const whole = diffText(long('x', 2500), long('y', 2500));
    expect(whole.unit).toBe('whole');
    expect(side(whole, 'delete')).toBe(long('x', 2500));
    expect(side(whole, 'insert')).toBe(long('y', 2500));
  });
});
