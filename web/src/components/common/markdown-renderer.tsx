import type { AnchorHTMLAttributes, HTMLAttributes } from 'react';
import ReactMarkdown, { type Components, type Options } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { useHighlighter } from '../../hooks/use-highlighter.ts';
import { CopyButton } from './copy-button.tsx';

/** Links leave the console in a new tab, without handing it `window.opener` or the console's address. */
function ExternalLink({
  node: _node,
  ...props
}: AnchorHTMLAttributes<HTMLAnchorElement> & { node?: unknown }) {
  return <a {...props} target="_blank" rel="noopener noreferrer" />;
}

/** The text under a syntax-tree node (what a code block shows, without its highlighting spans). */
function nodeText(node: unknown): string {
  const { type, value, children } = (node ?? {}) as { type?: string; value?: unknown; children?: unknown[] };
  if (type === 'text' && typeof value === 'string') return value;
  return Array.isArray(children) ? children.map(nodeText).join('') : '';
}

/** A code block with a Copy button for its code; focusable, since a long line scrolls it sideways. */
function CodeBlock({ node, ...props }: HTMLAttributes<HTMLPreElement> & { node?: unknown }) {
  return (
    <div className="code-block">
      <pre tabIndex={0} {...props} />
      <CopyButton value={nodeText(node).replace(/\n$/, '')} label="code" />
    </div>
  );
}

const COMPONENTS: Components = { a: ExternalLink, pre: CodeBlock };
const REMARK: Options['remarkPlugins'] = [remarkGfm];

/**
 * Loaded as a chunk of its own (see `markdown-text.tsx`). Model text as Markdown (GitHub flavour), code blocks copyable and highlighted once the highlighter has loaded. Raw HTML in the text is NOT rendered
 * (react-markdown's default, kept on purpose: a model can be made to write anything), and URLs with unsafe
 * schemes are dropped by react-markdown's default `urlTransform`.
 */
export function MarkdownRenderer({ text, className }: { text: string; className: string }) {
  const rehypePlugins = useHighlighter(text);
  return (
    <div className={className}>
      <ReactMarkdown remarkPlugins={REMARK} rehypePlugins={rehypePlugins} components={COMPONENTS}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
