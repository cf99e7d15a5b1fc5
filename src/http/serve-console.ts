import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Context, Hono } from 'hono';
import type { AppEnv } from './app-env.js';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Troupe</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>Troupe is running</h1>
<p>The web console is not built. Build it with <code>npm run build --prefix web</code> (output in
<code>web/dist</code>) and restart the server.</p>
<p>The HTTP API is available under <a href="/api/health"><code>/api</code></a>; its OpenAPI document is at
<a href="/api/openapi.json"><code>/api/openapi.json</code></a>. Authenticate with
<code>Authorization: Bearer &lt;token&gt;</code> (create one with <code>troupe tokens</code>).</p>
</body>
</html>
`;

function isDirectory(candidate: string): boolean {
  return existsSync(candidate) && statSync(candidate).isDirectory();
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
const PRECOMPRESSED = /\.(br|gz)$/;

/**
 * Hashed assets may be cached forever; everything else (index.html above all, which names the current
 * hashes) is revalidated on each load. A file with `.br`/`.gz` siblings (written at build by
 * web/precompress-plugin.ts) varies by Accept-Encoding even when served as is.
 */
function cacheHeaders(assetsDir: string, servedPath: string, c: Context<AppEnv>): void {
  // Vite names every file under `assets/` after a hash of its content: a new build means a new URL. The
  // served file, not the request path, decides: a missing asset falls back to index.html, never immutable.
  c.header('Cache-Control', servedPath.startsWith(assetsDir) ? IMMUTABLE : 'no-cache');
  const hasVariants = existsSync(`${servedPath}.br`) || existsSync(`${servedPath}.gz`);
  if (!PRECOMPRESSED.test(servedPath) && hasVariants) c.header('Vary', 'Accept-Encoding');
}

/**
 * The console at `/`: static files from `consoleDir`, and `index.html` for any other non-API GET so the
 * single-page app can route client-side. `/api/*` is never answered from here: unknown API paths stay
 * JSON `route_not_found`. Files are sent in the best precompressed encoding the request accepts
 * (br, then gzip).
 */
export function serveConsole(app: Hono<AppEnv>, consoleDir: string | undefined): void {
  const root = consoleDir === undefined ? undefined : path.resolve(consoleDir);
  if (root === undefined || !isDirectory(root)) {
    app.get('/', (c) => c.html(NOT_BUILT_PAGE));
    return;
  }
  const isApi = (requestPath: string): boolean => requestPath === '/api' || requestPath.startsWith('/api/');
  const assetsDir = path.join(root, 'assets') + path.sep;
  const onFound = (servedPath: string, c: Context<AppEnv>): void => cacheHeaders(assetsDir, servedPath, c);
  const files = serveStatic<AppEnv>({ root, precompressed: true, onFound });
  const fallback = serveStatic<AppEnv>({ path: path.join(root, 'index.html'), precompressed: true, onFound });
  app.get('*', async (c, next) => (isApi(c.req.path) ? next() : files(c, next)));
  app.get('*', async (c, next) => (isApi(c.req.path) ? next() : fallback(c, next)));
}
