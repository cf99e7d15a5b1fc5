import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoadServer, type LoadServer } from '../load/lib/load-server.js';
import { runTeamLoad } from '../load/lib/team-load.js';

// The small version of `npm run test:load` (test/load/concurrent-team.load.ts runs 200).
const CONVERSATIONS = 20;

let server: LoadServer;
beforeAll(async () => {
  server = await startLoadServer(CONVERSATIONS);
});
afterAll(async () => server.close());

describe(`${CONVERSATIONS} concurrent "team" conversations over real HTTP and SSE`, () => {
  it('complete with 0 lost events and 0 duplicate runs', { timeout: 120_000 }, async () => {
    const report = await runTeamLoad(server, CONVERSATIONS);
    expect(report.failures).toEqual([]);
    expect(report.lostEvents).toBe(0);
    expect(report.duplicateRuns).toBe(0);
    expect(report.completedParents).toBeGreaterThanOrEqual(CONVERSATIONS);
    expect(report.childRuns).toBe(report.parentRuns * 2);
    expect(report.sseStreams).toBe(report.parentRuns + report.childRuns);
  });
});
