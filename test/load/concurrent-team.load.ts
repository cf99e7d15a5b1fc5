import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoadServer, type LoadServer } from './lib/load-server.js';
import { runTeamLoad } from './lib/team-load.js';

const CONVERSATIONS = 200;

let server: LoadServer;
beforeAll(async () => {
  server = await startLoadServer(CONVERSATIONS);
});
afterAll(async () => server.close());

describe(`${CONVERSATIONS} concurrent conversations with subagents (demo "team" at zero delay, real HTTP + SSE)`, () => {
  it('completes every run with 0 lost events and 0 duplicate runs', async () => {
    const report = await runTeamLoad(server, CONVERSATIONS);
    console.log(`[load] ${JSON.stringify({ ...report, failures: report.failures.length })}`);
    expect(report.failures).toEqual([]);
    expect(report.lostEvents).toBe(0);
    expect(report.duplicateRuns).toBe(0);
    expect(report.completedParents).toBeGreaterThanOrEqual(CONVERSATIONS);
    expect(report.childRuns).toBe(report.parentRuns * 2);
    expect(report.sseStreams).toBe(report.parentRuns + report.childRuns);
  });
});
