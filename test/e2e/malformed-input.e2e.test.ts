import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoadServer, type LoadServer } from '../load/lib/load-server.js';
import { sweepEndpoints } from '../load/lib/malformed-sweep.js';
import { sweepFixture } from '../load/lib/sweep-fixture.js';

let server: LoadServer;
beforeAll(async () => {
  server = await startLoadServer(4);
});
afterAll(async () => server.close());

// The smoke version of test/load/malformed-input.load.ts: every operation, fewer variants each.
describe('malformed input against every endpoint of /api/openapi.json', () => {
  it('never answers 5xx, drops a connection or hangs', { timeout: 120_000 }, async () => {
    const realIds = await sweepFixture(server);
    const report = await sweepEndpoints(server, {
      maxBodyBytes: server.troupe.config.maxBodyBytes,
      realIds,
      smoke: true,
    });
    expect(report.operations).toBeGreaterThan(30);
    expect(report.findings).toEqual([]);
  });
});
