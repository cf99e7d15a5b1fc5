import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoadServer, type LoadServer } from './lib/load-server.js';
import { sweepEndpoints } from './lib/malformed-sweep.js';
import { sweepFixture } from './lib/sweep-fixture.js';

let server: LoadServer;
beforeAll(async () => {
  server = await startLoadServer(4);
});
afterAll(async () => server.close());

describe('malformed input against every endpoint of /api/openapi.json (full sweep)', () => {
  it('never answers 5xx, drops a connection or hangs', async () => {
    const realIds = await sweepFixture(server);
    const report = await sweepEndpoints(server, { maxBodyBytes: server.troupe.config.maxBodyBytes, realIds });
    console.log(
      `[sweep] ${report.operations} operations, ${report.requests} requests, statuses ${JSON.stringify(report.byStatus)}, ${report.retried} retried`,
    );
    expect(report.operations).toBeGreaterThan(30);
    expect(report.findings).toEqual([]);
  });
});
