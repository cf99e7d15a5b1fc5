import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
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

/**
 * The console at `/`: static files from `consoleDir`, and `index.html` for any other non-API GET so the
 * single-page app can route client-side. `/api/*` is never answered from here: unknown API paths stay
 * JSON `route_not_found`.
 */
export function serveConsole(app: Hono<AppEnv>, consoleDir: string | undefined): void {
  const root = consoleDir === undefined ? undefined : path.resolve(consoleDir);
  if (root === undefined || !isDirectory(root)) {
    app.get('/', (c) => c.html(NOT_BUILT_PAGE));
    return;
  }
  const isApi = (requestPath: string): boolean => requestPath === '/api' || requestPath.startsWith('/api/');
  const files = serveStatic<AppEnv>({ root });
  const fallback = serveStatic<AppEnv>({ path: path.join(root, 'index.html') });
  app.get('*', async (c, next) => (isApi(c.req.path) ? next() : files(c, next)));
  app.get('*', async (c, next) => (isApi(c.req.path) ? next() : fallback(c, next)));
}
