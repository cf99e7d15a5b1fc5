import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** SQLite's own default: the writing connection checkpoints once the WAL holds this many pages. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
const STOP_GRACE_MS = 2_000;

/**
 * WAL pages past which the worker also restarts the log. A PASSIVE checkpoint copies pages but never resets
 * the WAL: SQLite starts the log over only when a write begins while every frame is copied, which sustained
 * writes never allow, so under load the file grew without bound (217 MiB after two fan-outs).
 */
const DEFAULT_RESTART_PAGES = 4_096;
/**
 * How long a restart may wait for the writer and for readers to leave the WAL. It holds the write lock while
 * it waits, and the writer's busy handler blocks the event loop meanwhile: kept short, a restart that does
 * not get through gives up and is tried again on the next tick.
 */
const RESTART_WAIT_MS = 25;

// Plain CommonJS, evaluated in a worker thread: it must load without the TypeScript loader of the parent
// (tsx, vitest). A PASSIVE checkpoint never waits for the writer and never blocks it; the RESTART that
// follows a long WAL copies only what came in since and blocks the writer for at most RESTART_WAIT_MS.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { fileMustExist: true, timeout: workerData.restartWaitMs });
let failures = 0;
function checkpoint() {
  try {
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
    if (passive && passive.log > workerData.restartPages) db.pragma('wal_checkpoint(RESTART)');
    failures = 0;
  } catch (error) {
    if (++failures >= 5) throw error;
  }
}
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

export interface WalCheckpointer {
  /** Settles once the worker checkpoints and the writer stopped doing it, or once it gave up. */
  readonly ready: Promise<boolean>;
  /** Checkpoints one last time and closes the worker's connection; call before closing the database. */
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the event loop. With `wal_autocheckpoint` on, the commit that crosses 1,000
 * WAL pages copies them into the database file and syncs it, inside that commit: about two thirds of the
 * time SQLite spent committing a dispatch went there. A worker thread with its own connection checkpoints
 * instead, concurrently with the writer, and the writer's own checkpoints are switched off only once the
 * worker runs. If the worker fails, the writer checkpoints again as before. Past `restartPages` WAL pages the
 * worker restarts the log as well, so the WAL stays bounded under sustained writes (set the writer's
 * `journal_size_limit` to give the file's space back after a restart).
 */
export function startWalCheckpointer(
  database: Database.Database,
  filename: string,
  intervalMs = 250,
  restartPages = DEFAULT_RESTART_PAGES,
): WalCheckpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      filename: path.resolve(filename),
      intervalMs,
      restartPages,
      restartWaitMs: RESTART_WAIT_MS,
    },
  });
  worker.unref();
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const setWriterCheckpoints = (pages: number) => {
    if (database.open) database.pragma(`wal_autocheckpoint = ${pages}`);
  };
  const ready = new Promise<boolean>((resolve) => {
    worker.once('message', (message) => {
      if (message !== 'ready' || stopping) return resolve(false);
      setWriterCheckpoints(0);
      resolve(true);
    });
    worker.once('error', () => resolve(false));
    void exited.then(() => {
      if (!stopping) setWriterCheckpoints(DEFAULT_AUTOCHECKPOINT_PAGES);
      resolve(false);
    });
  });
  // An error ends the worker; the exit handler above hands checkpoints back to the writer.
  worker.on('error', () => undefined);

  return {
    ready,
    async stop() {
      if (stopping) return exited;
      stopping = true;
      setWriterCheckpoints(DEFAULT_AUTOCHECKPOINT_PAGES);
      worker.postMessage('stop');
      const grace = setTimeout(() => void worker.terminate(), STOP_GRACE_MS);
      await exited;
      clearTimeout(grace);
    },
  };
}
