import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { TroupeConfig } from './config.js';
import type { AppEnv } from './http/app-env.js';
import type { RequestArrivals } from './runtime/runs/start/request-arrivals.js';

/** What serving needs of a Troupe (structural, so this module does not depend on the root). */
export interface Servable {
  app: Hono<AppEnv>;
  config: Pick<TroupeConfig, 'host' | 'port'>;
  /** Where each request's arrival is counted. */
  requests?: RequestArrivals;
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** The app's fetch, counting each request's arrival in `requests` before any routing. */
function countedFetch(troupe: Servable): Hono<AppEnv>['fetch'] {
  const { app, requests } = troupe;
  if (!requests) return app.fetch;
  return (request, env, context) => {
    requests.arrived();
    return app.fetch(request, env, context);
  };
}

/** Listens on `config.host:config.port` (port 0 picks a free one) and resolves with the real URL. */
export function listen(troupe: Servable): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType | undefined;
    try {
      server = serve(
        { fetch: countedFetch(troupe), hostname: troupe.config.host, port: troupe.config.port },
        (info) => {
          const host = info.address.includes(':') ? `[${info.address}]` : info.address;
          resolve({
            url: `http://${host}:${info.port}`,
            close: () =>
              new Promise<void>((done) => {
                server?.close(() => done());
                // SSE connections would keep the server open forever.
                if (server && 'closeAllConnections' in server) server.closeAllConnections();
              }),
          });
        },
      );
      server.on('error', reject);
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
