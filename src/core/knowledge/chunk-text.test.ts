import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkText } from './chunk-text.js';

const MARKDOWN = `Intro line before any heading.

# Operations

General notes.

## Deploy

Run the container.

\`\`\`sh
# not a heading inside a fence
docker compose up
\`\`\`

### Ports

The API listens on 3000.

## Backups
## Restore

Restore from the nightly snapshot.
`;

describe('chunkText', () => {
  it('cuts Markdown at headings and gives each chunk its heading path', () => {
    const chunks = chunkText(MARKDOWN, { markdown: true });
    expect(chunks.map((chunk) => chunk.heading_path)).toEqual([
      [],
      ['Operations'],
      ['Operations', 'Deploy'],
      ['Operations', 'Deploy', 'Ports'],
      // "Backups" holds only its heading: no chunk of its own.
      ['Operations', 'Restore'],
    ]);
    expect(chunks[2]?.text).toContain('# not a heading inside a fence');
    expect(chunks[4]?.text).toBe('## Restore\n\nRestore from the nightly snapshot.');
  });

  it('points every chunk at the exact text it holds', () => {
    for (const chunk of chunkText(MARKDOWN, { markdown: true })) {
      expect(MARKDOWN.slice(chunk.start, chunk.end)).toBe(chunk.text);
      expect(chunk.page).toBeNull();
    }
  });

  it('reads `#` lines as text when the document is not Markdown', () => {
    const chunks = chunkText(MARKDOWN);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ heading_path: [], start: 0, end: MARKDOWN.trimEnd().length });
  });

  it('splits a long section at paragraphs, with overlap, staying under the limit', () => {
    const paragraphs = Array.from(
      { length: 12 },
      (_, index) => `Paragraph ${index} ${'word '.repeat(20).trim()}.`,
    );
    const text = `# Long\n\n${paragraphs.join('\n\n')}`;
    const chunks = chunkText(text, { markdown: true, maxChars: 400, overlapChars: 100 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const [index, chunk] of chunks.entries()) {
      expect(chunk.text.length).toBeLessThanOrEqual(400);
      expect(chunk.heading_path).toEqual(['Long']);
      const previous = chunks[index - 1];
      // Each chunk starts inside the previous one (the overlap) and ends after it.
      if (previous) {
        expect(chunk.start).toBeLessThan(previous.end);
        expect(chunk.start).toBeGreaterThan(previous.start);
        expect(chunk.end).toBeGreaterThan(previous.end);
        // The overlap starts at a word, never inside one.
        expect(text[chunk.start - 1]).toMatch(/\s/);
      }
    }
    expect(chunks.at(-1)?.text.endsWith('Paragraph 11 ' + 'word '.repeat(20).trim() + '.')).toBe(true);
  });

  it('repeats a whole short paragraph as the overlap when it fits', () => {
    const text = ['a'.repeat(150), 'b'.repeat(150), 'Short tail.', 'c'.repeat(150)].join('\n\n');
    const [first, second] = chunkText(text, { maxChars: 330, overlapChars: 80 });
    expect(first?.text.endsWith('Short tail.')).toBe(true);
    expect(second?.text.startsWith('Short tail.')).toBe(true);
  });

  it('falls back to sentences, then words, then a hard cut', () => {
    const sentences = 'One short sentence here. '.repeat(40);
    for (const chunk of chunkText(sentences, { maxChars: 200, overlapChars: 0 })) {
      expect(chunk.text.endsWith('.')).toBe(true);
    }
    const words = 'word '.repeat(200);
    for (const chunk of chunkText(words, { maxChars: 100, overlapChars: 20 })) {
      expect(chunk.text).toMatch(/^word( word)*$/);
    }
    const blob = 'x'.repeat(1000);
    const hard = chunkText(blob, { maxChars: 100, overlapChars: 0 });
    expect(hard.map((chunk) => chunk.text.length)).toEqual(Array(10).fill(100));
  });

  it('chunks each page on its own and records the page', () => {
    const pages = ['First page text.', 'Second page text.'];
    const text = pages.join('\n\n');
    const chunks = chunkText(text, {
      segments: [
        { start: 0, end: pages[0]?.length ?? 0, page: 1 },
        { start: (pages[0]?.length ?? 0) + 2, end: text.length, page: 2 },
      ],
    });
    expect(chunks.map((chunk) => [chunk.page, chunk.text])).toEqual([
      [1, 'First page text.'],
      [2, 'Second page text.'],
    ]);
  });

  it('gives nothing for blank text', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText(' \n\n \t')).toEqual([]);
    expect(chunkText('# Only a heading\n\n## And another', { markdown: true })).toEqual([]);
  });

  it('always terminates with exact, bounded, ordered chunks that cover every word', () => {
    const word = fc.stringMatching(/^[a-z#.\n ]{1,12}$/);
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 300 }),
        fc.integer({ min: 50, max: 400 }),
        fc.boolean(),
        (words, maxChars, markdown) => {
          const text = words.join(' ');
          const chunks = chunkText(text, { maxChars, overlapChars: 40, markdown });
          let covered = 0;
          let previousStart = -1;
          for (const chunk of chunks) {
            expect(text.slice(chunk.start, chunk.end)).toBe(chunk.text);
            expect(chunk.text.length).toBeLessThanOrEqual(maxChars);
            expect(chunk.start).toBeGreaterThan(previousStart);
            previousStart = chunk.start;
            // No gap: whatever lies between the text covered so far and this chunk is blank or a bare heading.
            if (chunk.start > covered) expect(text.slice(covered, chunk.start)).toMatch(/^(\s|#[^\n]*)*$/);
            covered = Math.max(covered, chunk.end);
          }
          expect(text.slice(covered)).toMatch(/^(\s|#[^\n]*)*$/);
        },
      ),
      { numRuns: 200 },
    );
  });
});
