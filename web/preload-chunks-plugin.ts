import type { Plugin } from 'vite';

/**
 * Adds `<link rel="modulepreload">` to index.html for the lazy chunks of the given source files, so the
 * browser fetches them beside the main script instead of one round trip after it has run (on a phone's
 * latency that round trip is a visible delay). Only for chunks every first load needs anyway.
 */
export function preloadChunks(sources: readonly string[]): Plugin {
  return {
    name: 'troupe-preload-chunks',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, { bundle }) {
        if (!bundle) return [];
        const chunks = Object.values(bundle).filter(
          (output) =>
            output.type === 'chunk' &&
            output.isDynamicEntry &&
            sources.some((source) => output.facadeModuleId?.endsWith(source) === true),
        );
        if (chunks.length !== sources.length) {
          throw new Error(`preloadChunks: no lazy chunk for one of ${sources.join(', ')}`);
        }
        return chunks.map((chunk) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: '', href: `/${chunk.fileName}` },
          injectTo: 'head' as const,
        }));
      },
    },
  };
}
