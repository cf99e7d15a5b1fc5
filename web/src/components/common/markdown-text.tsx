import type { AnchorHTMLAttributes } from 'react';
import ReactMarkdown, { type Components, type Options } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';

/** Links leave the console in a new tab, without handing it `window.opener` or the console's address. */
function ExternalLink({
  node: _node,
  ...props
}: AnchorHTMLAttributes<HTMLAnchorElement> & { node?: unknown }) {
  return <a {...props} target="_blank" rel="noopener noreferrer" />;
}

const COMPONENTS: Components = { a: ExternalLink };
const REMARK: Options['remarkPlugins'] = [remarkGfm];
// `detect: false`: only fenced blocks that name their language are highlighted; guessing is slow and wrong.
const REHYPE: Options['rehypePlugins'] = [[rehypeHighlight, { detect: false }]];

/**
 * Model text as Markdown (GitHub flavour), code blocks highlighted. Raw HTML in the text is NOT rendered
 * (react-markdown's default, kept on purpose: a model can be made to write anything), and URLs with unsafe
 * schemes are dropped by react-markdown's default `urlTransform`.
 */
export function MarkdownText({ text, className = 'markdown' }: { text: string; className?: string }) {
  return (
    <div className={className}>
      <ReactMarkdown remarkPlugins={REMARK} rehypePlugins={REHYPE} components={COMPONENTS}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
