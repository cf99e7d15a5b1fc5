import { lazy, Suspense } from 'react';

// The Markdown parser (micromark, mdast, GFM) is a third of the console's script and only answers need it:
// it is a chunk of its own, requested as soon as the main script runs, so it downloads beside the page's data
// requests instead of delaying the first paint.
const loadRenderer = import('./markdown-renderer.tsx');
const MarkdownRenderer = lazy(async () => ({ default: (await loadRenderer).MarkdownRenderer }));

/**
 * Model text as Markdown (`markdown-renderer.tsx`). Until the parser has arrived the text takes no room:
 * a text shown raw, then reflowed as Markdown, would jump under the reader's eyes.
 */
export function MarkdownText({ text, className = 'markdown' }: { text: string; className?: string }) {
  return (
    <Suspense fallback={<div className={className} aria-busy="true" />}>
      <MarkdownRenderer text={text} className={className} />
    </Suspense>
  );
}
