import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { findServiceBinaries, type ServiceBinaries } from './services.js';
import { createTeardown, type Teardown } from './teardown.js';

/**
 * The server binaries for a suite that starts, restarts and stops PostgreSQL or Redis servers of its own (never
 * the shared ones); when they are missing, registers a skipped suite that says why and returns undefined.
 */
export function serviceBinariesOrSkip(suite: string): ServiceBinaries | undefined {
  const found = findServiceBinaries();
  if ('binaries' in found) return found.binaries;
  const reason = `${suite}: skipped because the server binaries are missing (${found.missing}; .ci/run installs them)`;

  console.warn(reason);
  describe.skip(reason, () => {
    it('needs PostgreSQL and Redis server binaries', () => undefined);
  });
  return undefined;
}

/**
 * A server of the suite's own, started before its tests in a temp dir and stopped (the dir removed) after them.
 * The returned getter reads it once `beforeAll` ran.
 */
export function useThrowawayServer<T>(start: (dir: string, teardown: Teardown) => Promise<T>): () => T {
  const teardown = createTeardown((message) => console.warn(message));
  let server: T | undefined;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-throwaway-'));
    teardown.add('the temp dir', () => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    server = await start(dir, teardown);
  }, 60_000);
  afterAll(() => teardown.run(), 30_000);
  return () => {
    if (server === undefined) throw new Error('the throwaway server is not started yet');
    return server;
  };
}
