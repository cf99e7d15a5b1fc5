import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { inlineCss } from './inline-css-plugin.ts';
import { precompress } from './precompress-plugin.ts';
import { preloadChunks } from './preload-chunks-plugin.ts';

const webRoot = decodeURIComponent(new URL('.', import.meta.url).pathname);

/**
 * The Troupe console. `npm run build:web` writes `web/dist`, which the server serves at `/`.
 * `npm run dev:web` serves it with hot reload and proxies `/api` to a running server
 * (`TROUPE_API_URL`, default http://127.0.0.1:3000).
 */
export default defineConfig({
  root: webRoot,
  base: '/',
  // The Markdown renderer is lazy (web/src/components/common/markdown-text.tsx) but every answer needs it.
  // The stylesheet is written into index.html: the first paint waits for no second request.
  plugins: [
    react(),
    preloadChunks(['src/components/common/markdown-renderer.tsx']),
    inlineCss(),
    precompress(),
  ],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    rollupOptions: {
      output: {
        // Chromium compiles every function of a script marked so on the thread that streams it in, instead of
        // lazily on the main thread at its first call: the main chunk is React and the first page, all of it
        // run at start.
        postBanner: (chunk) => (chunk.isEntry ? '//# allFunctionsCalledOnLoad' : ''),
      },
    },
  },
  server: {
    proxy: {
      '/api': { target: process.env.TROUPE_API_URL ?? 'http://127.0.0.1:3000', changeOrigin: true },
    },
  },
});
