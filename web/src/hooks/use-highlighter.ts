import { useEffect, useSyncExternalStore } from 'react';
import type { Options } from 'react-markdown';

type RehypePlugins = NonNullable<Options['rehypePlugins']>;

const NONE: RehypePlugins = [];
let plugins: RehypePlugins = NONE;
let loading: Promise<void> | null = null;
const listeners = new Set<() => void>();

/**
 * highlight.js (every common language) is the largest part of the console's script: it is fetched only once
 * a text holds a fenced block naming its language, after that text has rendered, so the first paint never
 * waits for it. Code blocks show plain until it arrives, then every mounted text re-renders highlighted.
 */
function loadHighlighter(): void {
  loading ??= import('rehype-highlight').then(
    ({ default: rehypeHighlight }) => {
      // `detect: false`: only fenced blocks that name their language are highlighted; guessing is slow and wrong.
      plugins = [[rehypeHighlight, { detect: false }]];
      for (const listener of listeners) listener();
    },
    () => {
      // Offline or a new deployment replaced the chunk: stay plain, try again with the next text.
      loading = null;
    },
  );
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A fenced code block with a language (```ts or ~~~py): the only blocks the highlighter touches. */
const FENCE_WITH_LANGUAGE = /^ {0,3}(?:`{3,}|~{3,})[ \t]*[^\s`~]/m;

/** The rehype plugins for a Markdown text: the highlighter once loaded, none before (nor for plain text). */
export function useHighlighter(text: string): RehypePlugins {
  const wanted = FENCE_WITH_LANGUAGE.test(text);
  useEffect(() => {
    if (wanted) loadHighlighter();
  }, [wanted]);
  return useSyncExternalStore(subscribe, () => plugins);
}
