/** One run of a diff: text both sides share (`equal`), only the second has (`insert`) or only the first (`delete`). */
export interface DiffPart {
  op: 'equal' | 'insert' | 'delete';
  text: string;
}

export interface TextDiff {
  /** `word` for outputs small enough to compare word by word; `line` above that; `whole` when even lines are too many. */
  unit: 'word' | 'line' | 'whole';
  parts: DiffPart[];
}

/** Above this many cells the quadratic table is not built: a diff is worth less than the server's memory. */
const MAX_CELLS = 4_000_000;

/** Words with the whitespace after them, so joining the tokens gives the text back exactly. */
function words(text: string): string[] {
  return text.match(/\s+|\S+\s*/g) ?? [];
}

function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function push(parts: DiffPart[], op: DiffPart['op'], text: string): void {
  const last = parts.at(-1);
  if (last?.op === op) last.text += text;
  else parts.push({ op, text });
}

/** A longest-common-subsequence diff of two token lists, with the common prefix and suffix taken off first. */
function diffTokens(left: string[], right: string[]): DiffPart[] {
  let start = 0;
  while (start < left.length && start < right.length && left[start] === right[start]) start++;
  let endLeft = left.length;
  let endRight = right.length;
  while (endLeft > start && endRight > start && left[endLeft - 1] === right[endRight - 1]) {
    endLeft--;
    endRight--;
  }
  const a = left.slice(start, endLeft);
  const b = right.slice(start, endRight);
  const parts: DiffPart[] = [];
  if (start > 0) push(parts, 'equal', left.slice(0, start).join(''));
  // lengths[i][j]: the LCS of a[i..] and b[j..], in one flat array.
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[i] === b[j]
          ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      push(parts, 'equal', a[i] ?? '');
      i++;
      j++;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      push(parts, 'delete', a[i] ?? '');
      i++;
    } else {
      push(parts, 'insert', b[j] ?? '');
      j++;
    }
  }
  if (i < a.length) push(parts, 'delete', a.slice(i).join(''));
  if (j < b.length) push(parts, 'insert', b.slice(j).join(''));
  if (endLeft < left.length) push(parts, 'equal', left.slice(endLeft).join(''));
  return parts;
}

/** The cells the table needs once the shared prefix and suffix are off: an upper bound is enough. */
const cells = (left: string[], right: string[]) => (left.length + 1) * (right.length + 1);

/**
 * A diff of two texts (docs/effects-and-forks.md#compare): word by word when the outputs are small enough,
 * line by line otherwise, and one delete plus one insert when even that would be too big. Joining the
 * `equal` and `delete` parts gives the first text back, `equal` and `insert` the second.
 */
export function diffText(before: string, after: string): TextDiff {
  const [wordsBefore, wordsAfter] = [words(before), words(after)];
  if (cells(wordsBefore, wordsAfter) <= MAX_CELLS)
    return { unit: 'word', parts: diffTokens(wordsBefore, wordsAfter) };
  const [linesBefore, linesAfter] = [lines(before), lines(after)];
  if (cells(linesBefore, linesAfter) <= MAX_CELLS)
    return { unit: 'line', parts: diffTokens(linesBefore, linesAfter) };
  const parts: DiffPart[] = [];
  if (before !== '') parts.push({ op: 'delete', text: before });
  if (after !== '') parts.push({ op: 'insert', text: after });
  return { unit: 'whole', parts };
}
