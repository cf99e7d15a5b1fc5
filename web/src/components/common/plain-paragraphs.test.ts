import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { describe, expect, it } from 'vitest';
import { PlainText } from './markdown-text.tsx';
import { plainParagraphs } from './plain-paragraphs.ts';

const markdown = (text: string) =>
  renderToStaticMarkup(
    createElement(
      'div',
      { className: 'markdown' },
      createElement(ReactMarkdown, { remarkPlugins: [remarkGfm] }, text),
    ),
  );
const plain = (text: string) => {
  const paragraphs = plainParagraphs(text);
  return paragraphs === null
    ? null
    : renderToStaticMarkup(createElement(PlainText, { paragraphs, className: 'markdown' }));
};

describe('plainParagraphs', () => {
  it('renders a text of plain paragraphs exactly as the Markdown renderer does', () => {
    for (const text of [
      'You said: Last question, bench-transcript-end.',
      'One line\nand the next, 42 % of it (roughly) = "fine"; isn\'t it?',
      '\nFirst paragraph.\n\n\nSecond: 2026 was a year.\n',
      'Café, naïve, 東京 and 3.14 - not a list',
      '',
    ]) {
      expect(plain(text), text).toBe(markdown(text));
    }
  });

  it('leaves to the renderer every text that may be more than paragraphs', () => {
    for (const text of [
      '**bold**',
      'a _word_',
      '`code`',
      '# Title',
      '- item',
      '+ item',
      '1. first',
      '2) second',
      'Title\n===',
      'Title\n---',
      '    indented code',
      'see https://example.com',
      'see www.example.com',
      'mail me@example.com',
      'a | b',
      'line with a hard break  \nnext',
      'x < y & z',
      '[link](x)',
      '~~gone~~',
      'tab\there',
    ]) {
      expect(plainParagraphs(text), text).toBeNull();
    }
  });
});
