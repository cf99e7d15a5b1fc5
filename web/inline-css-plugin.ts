import type { Plugin } from 'vite';

/**
 * Writes the console's stylesheet into index.html (`<style>`) instead of linking it: a linked stylesheet
 * blocks the first paint for one more round trip after the page itself, a visible delay on a phone's
 * latency, while the whole of it adds about 8 kB to the compressed page. The stylesheet file is still
 * written (and served) for anything that names it.
 */
export function inlineCss(): Plugin {
  return {
    name: 'troupe-inline-css',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        if (!bundle) return html;
        return html.replace(
          /<link rel="stylesheet"[^>]*? href="\/([^"]+\.css)"[^>]*>/g,
          (_link: string, fileName: string) => {
            const asset = bundle[fileName];
            if (asset?.type !== 'asset') throw new Error(`inlineCss: ${fileName} is not in the bundle`);
            const css =
              typeof asset.source === 'string' ? asset.source : new TextDecoder().decode(asset.source);
            // `</style` cannot occur in CSS vite wrote, save inside a string; escaped there all the same.
            return `<style>${css.replace(/<\/style/gi, '<\\/style')}</style>`;
          },
        );
      },
    },
  };
}
