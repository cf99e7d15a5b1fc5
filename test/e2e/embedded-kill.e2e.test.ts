import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/records/run-event.js';
import type { Run, TokenUsage } from '../../src/core/records/run.js';
import type { RunTrace } from '../../src/core/trace/run-trace.js';
import { json as readJson } from '../helpers/http/expect-error.js';
import { eventually, ServerProcess, START_TIMEOUT_MS } from '../helpers/server-process.js';
import { readSse } from '../helpers/start-test-server.js';

/*
 * `kill -9` of an embedded server (SQLite file, in-process queue) while a `task` child runs in it, then a
 * restart on the same data dir: the parent and its child are resumed from their checkpoints, the parent's
 * replayed `task` call finds its child instead of starting another, and the parent's stream stays gapless.
 * Their usage is live before the kill and sums every attempt after it: it never goes down (docs/usage.md).
 */
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const LEASE_MS = 1_500;
const RUN_TIMEOUT_MS = 60_000;

interface ChildEntry {
  run_id: string;
  slug: string;
  status: string;
  usage: TokenUsage | null;
}

/** Calls a run made, answered or not, and its tokens: neither may go down from one read to the next. */
function expectNeverDown(readings: (TokenUsage | null)[]): void {
  const calls = (usage: TokenUsage | null) => (usage ? usage.model_calls + usage.aborted_model_calls : 0);
  for (let index = 1; index < readings.length; index++) {
    expect(calls(readings[index] ?? null)).toBeGreaterThanOrEqual(calls(readings[index - 1] ?? null));
    expect(readings[index]?.total_tokens ?? 0).toBeGreaterThanOrEqual(readings[index - 1]?.total_tokens ?? 0);
  }
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-embedded-kill-'));
const servers: ServerProcess[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

/** `troupe serve` on the shared data dir; resolves with its URL and the token it printed. */
async function serve(name: string): Promise<{ server: ServerProcess; baseUrl: string; token: string }> {
  const server = new ServerProcess(name, ['--port', '0'], {
    ...process.env,
    TROUPE_DATA_DIR: dataDir,
    TROUPE_SCENARIO_DIR: path.join(REPO_ROOT, 'scenarios'),
    TROUPE_LEASE_MS: String(LEASE_MS),
    TROUPE_HOST: '127.0.0.1',
    TROUPE_DATABASE_URL: '',
    TROUPE_REDIS_URL: '',
  });
  servers.push(server);
  const [, baseUrl = ''] = await server.waitFor(/Troupe is serving on (http:\/\/\S+)/);
  const [, token = ''] = await server.waitFor(/Token for "demo"[^:]*: (trp_\S+)/);
  return { server, baseUrl, token };
}

function client(baseUrl: string, token: string) {
  const api = (pathname: string, init: RequestInit = {}) =>
    fetch(`${baseUrl}${pathname}`, {
      ...init,
      signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
    });
  const json = async <T>(response: Promise<Response>, status = 200): Promise<T> =>
    readJson<T>(await response, status);
  return { api, json };
}

describe('kill -9 of an embedded server during a task dispatch', () => {
  it(
    'resumes the parent and its child after a restart: one child, both completed, the stream gapless',
    async () => {
      const first = await serve('first');
      const before = client(first.baseUrl, first.token);
      const { conversation } = await before.json<{ conversation: { id: string } }>(
        before.api('/api/conversations', { method: 'POST', body: JSON.stringify({ agent_id: 'assistant' }) }),
        201,
      );
      // The demo assistant hands a message about research to the researcher with `task`; the researcher
      // takes about four seconds (scenarios/researcher.yaml).
      const { run: parent } = await before.json<{ run: Run }>(
        before.api(`/api/conversations/${conversation.id}/messages`, {
          method: 'POST',
          body: JSON.stringify({ content: 'Please research how leases expire.' }),
        }),
        202,
      );
      const child = await eventually('the researcher to be running', RUN_TIMEOUT_MS, async () => {
        const { subagents } = await before.json<{ subagents: ChildEntry[] }>(
          before.api(`/api/conversations/${conversation.id}/subagents`),
        );
        return subagents.find((entry) => entry.status === 'running');
      });
      const [held, heldChild] = await Promise.all(
        [parent.id, child.run_id].map(
          async (id) => (await before.json<{ run: Run }>(before.api(`/api/agent/runs/${id}`))).run,
        ),
      );
      // Both are held by the one worker of this process, the child claimed by its start.
      expect(heldChild?.worker_id).toBe(held?.worker_id);
      expect(heldChild?.status).toBe('running');
      // Live usage: the parent's `task` call settled while the parent still runs, and shows.
      expect(held?.status).toBe('running');
      expect(held?.usage?.model_calls).toBe(1);
      expect(held?.usage?.total_tokens).toBeGreaterThan(0);
      const parentReadings: (TokenUsage | null)[] = [held?.usage ?? null];
      const childReadings: (TokenUsage | null)[] = [heldChild?.usage ?? null];
      const { subagents: panelBefore } = await before.json<{ subagents: ChildEntry[] }>(
        before.api(`/api/conversations/${conversation.id}/subagents`),
      );
      childReadings.push(panelBefore[0]?.usage ?? null);

      await first.server.killHard();

      const second = await serve('second');
      const after = client(second.baseUrl, second.token);
      for (let read = 0; read < 3; read++) {
        const [parentNow, childNow] = await Promise.all(
          [parent.id, child.run_id].map(
            async (id) => (await after.json<{ run: Run }>(after.api(`/api/agent/runs/${id}`))).run,
          ),
        );
        parentReadings.push(parentNow?.usage ?? null);
        childReadings.push(childNow?.usage ?? null);
      }
      const awaited = await after.json<{ run: Run; wait_timed_out: boolean }>(
        after.api(`/api/agent/runs/${parent.id}/await?timeout_ms=${RUN_TIMEOUT_MS}`),
      );
      expect(awaited.wait_timed_out).toBe(false);
      expect(awaited.run).toMatchObject({ status: 'completed', attempt: 2 });
      expect(awaited.run.output).toContain('Here is what the researcher found');
      expect(awaited.run.output).toContain('Research notes on: Please research how leases expire.');

      // The resumed parent's `task` call found its child again: one child, resumed and completed.
      const { subagents } = await after.json<{ subagents: ChildEntry[] }>(
        after.api(`/api/conversations/${conversation.id}/subagents`),
      );
      expect(subagents.map((entry) => [entry.run_id, entry.status])).toEqual([[child.run_id, 'completed']]);
      const { run: resumedChild } = await after.json<{ run: Run }>(
        after.api(`/api/agent/runs/${child.run_id}`),
      );
      expect(resumedChild).toMatchObject({ status: 'completed', attempt: 2 });

      // Usage over both attempts: the parent's `task` call of the first and its answer in the second.
      parentReadings.push(awaited.run.usage);
      childReadings.push(resumedChild?.usage ?? null, subagents[0]?.usage ?? null);
      expectNeverDown(parentReadings);
      expectNeverDown(childReadings);
      expect(awaited.run.usage).toMatchObject({ model_calls: 2, aborted_model_calls: 0 });
      // The researcher answers on its third call; a call the kill cut off counts as aborted, not answered.
      expect(resumedChild?.usage?.model_calls).toBe(3);
      // The trace counts the same calls, from its spans, as the API: one figure everywhere.
      const { trace } = await after.json<{ trace: RunTrace }>(
        after.api(`/api/agent/runs/${parent.id}/trace`),
      );
      for (const node of trace.nodes) {
        const spans = node.timeline.spans.filter((span) => span.kind === 'model');
        expect(node.totals.own).toEqual(node.run.usage);
        expect(spans.filter((span) => span.usage !== null)).toHaveLength(node.run.usage?.model_calls ?? -1);
        expect(spans.filter((span) => span.status === 'interrupted')).toHaveLength(
          node.run.usage?.aborted_model_calls ?? -1,
        );
      }

      const frames = await readSse(await after.api(`/api/agent/runs/${parent.id}/events`));
      expect(frames.map((frame) => Number(frame.id))).toEqual(frames.map((_, index) => index + 1));
      const events = frames.map((frame) => JSON.parse(frame.data) as RunEvent);
      expect(events.at(-1)).toMatchObject({ type: 'end', payload: { status: 'completed' } });
      expect(
        events.filter((event) => event.type === 'metadata').map((event) => event.payload.attempt),
      ).toEqual([1, 2]);
      const childStatuses = events
        .filter((event) => event.type === 'subagent_update')
        .filter((event) => event.payload.run_id === child.run_id)
        .map((event) => event.payload.status);
      expect(childStatuses.slice(0, 2)).toEqual(['pending', 'running']);
      expect(childStatuses.at(-1)).toBe('completed');
    },
    3 * START_TIMEOUT_MS,
  );
});
