import { Fragment, lazy, Suspense } from 'react';
import { plainParagraphs } from './plain-paragraphs.ts';

// The Markdown parser (micromark, mdast, GFM) is a third of the console's script and only answers need it:
// it is a chunk of its own, requested as soon as the main script runs, so it downloads beside the page's data
// requests instead of delaying the first paint.
const loadRenderer = import('./markdown-renderer.tsx');
const MarkdownRenderer = lazy(async () => ({ default: (await loadRenderer).MarkdownRenderer }));

/**
 * Paragraphs exactly as the Markdown renderer writes them (a line break between blocks included), so a text
 * shown this way never changes when the renderer has loaded.
 */
export function PlainText({ paragraphs, className }: { paragraphs: string[]; className: string }) {
  return (
    <div className={className}>
      {paragraphs.map((paragraph, index) => (
        <Fragment key={index}>
          {index > 0 ? '\n' : null}
          <p>{paragraph}</p>
        </Fragment>
      ))}
    </div>
  );
}

/**
 * Model text as Markdown (`markdown-renderer.tsx`). A text of plain paragraphs is shown at once, as the
 * renderer would show it. Anything else takes no room until the parser has arrived: a text shown raw, then
 * reflowed as Markdown, would jump under the reader's eyes.
 */
export function MarkdownText({ text, className = 'markdown' }: { text: string; className?: string }) {
  const paragraphs = plainParagraphs(text);
  if (paragraphs !== null) return <PlainText paragraphs={paragraphs} className={className} />;
  return (
    <Suspense fallback={<div className={className} aria-busy="true" />}>
      <MarkdownRenderer text={text} className={className} />
    </Suspense>
  );
}
