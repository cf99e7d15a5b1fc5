import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHttpTestServer, type HttpTestServer } from '../helpers/mcp/start-mcp-test-server.js';
import { loadConfig } from '../../src/config.js';
import { readSse, startTestServer, type TestServer } from '../helpers/start-test-server.js';

// Real composition (createTroupe + listen), real MCP server process on 127.0.0.1, real HTTP.
const SECRET = 'mcp-key-SECRET-7f3a91';
const DIGEST = `sha256:${createHash('sha256').update(SECRET).digest('hex')}`;
const SCENARIO = `
rules:
  - steps:
      - tool_calls: [{ name: mcp__web__header, args: { name: "x-api-key" } }]
      - text: "got {{last_tool_result}}"
`;

let mcp: HttpTestServer;
let scenarioDir: string;
const stderr: string[] = [];
beforeAll(async () => {
  mcp = await startHttpTestServer();
  scenarioDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-egress-'));
  writeFileSync(path.join(scenarioDir, 'mcp-header.yaml'), SCENARIO);
  // Troupe logs JSON lines on this process's stderr: keep them to look for the secret.
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    stderr.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return (write as (chunk: string | Uint8Array, ...args: unknown[]) => boolean)(chunk, ...rest);
  });
}, 90_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await mcp.stop();
  rmSync(scenarioDir, { recursive: true, force: true });
});

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Api = (pathname: string, init?: { method?: string; body?: unknown }) => Promise<Response>;

function apiAs(base: TestServer, token: string): Api {
  return (pathname, init = {}) =>
    fetch(`${base.url}${pathname}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
}

async function member(base: TestServer): Promise<Api> {
  const response = await base.api('/api/users', {
    method: 'POST',
    body: JSON.stringify({ name: 'mallory', role: 'member' }),
  });
  expect(response.status).toBe(201);
  return apiAs(base, ((await response.json()) as { token: string }).token);
}

function headerAgent(slug: string, visibility = 'private') {
  return {
    name: slug,
    slug,
    visibility,
    config: {
      model: 'scripted:mcp-header',
      mcp_servers: [{ name: 'web', transport: 'http', url: mcp.url, headers: { 'x-api-key': SECRET } }],
    },
  };
}

/** Runs one message and returns the run's end payload and every SSE frame it streamed. */
async function chat(api: Api, agentSlug: string): Promise<{ runId: string; output: string; frames: string }> {
  const created = await api('/api/conversations', { method: 'POST', body: { agent_id: agentSlug } });
  expect(created.status).toBe(201);
  const { conversation } = (await created.json()) as { conversation: { id: string } };
  const posted = await api(`/api/conversations/${conversation.id}/messages`, {
    method: 'POST',
    body: { content: 'check' },
  });
  const { run } = (await posted.json()) as { run: { id: string } };
  const frames = await readSse(await api(`/api/agent/runs/${run.id}/events`));
  const end = JSON.parse(frames.at(-1)?.data ?? '{}') as {
    payload: { status: string; output: string | null };
  };
  return { runId: run.id, output: end.payload.output ?? '', frames: JSON.stringify(frames) };
}

describe('MCP secrets over real HTTP (docs/egress-and-secrets.md)', { timeout: 120_000 }, () => {
  it('redacts headers on every read, keeps them through a round trip, and sends the real one to the server', async () => {
    server = await startTestServer({ scenarioDir });
    const admin = apiAs(server, server.token);
    const created = await admin('/api/agent', {
      method: 'POST',
      body: headerAgent('header-check', 'public'),
    });
    const createdText = await created.text();
    expect(created.status, createdText).toBe(201);
    expect(createdText).not.toContain(SECRET);

    // The console's round trip: read, change one field, send the whole config back.
    const read = (await (await admin('/api/agent/header-check')).json()) as {
      agent: { config: Record<string, unknown> };
    };
    expect(JSON.stringify(read)).toContain('"x-api-key":"[redacted]"');
    const updated = await admin('/api/agent/header-check', {
      method: 'PUT',
      body: { config: { ...read.agent.config, system_prompt: 'Check.' } },
    });
    expect(updated.status).toBe(200);
    expect(await updated.text()).not.toContain(SECRET);

    const other = await member(server);
    for (const pathname of [
      '/api/agent',
      '/api/agent/header-check',
      '/api/agent/header-check/build-report',
    ]) {
      const response = await other(pathname);
      expect(response.status).toBe(200);
      expect(await response.text()).not.toContain(SECRET);
    }

    // A member's run of the admin's public agent: the server got the real header (its digest comes back).
    const run = await chat(other, 'header-check');
    expect(run.output).toBe(`got ${DIGEST}`);
    expect(run.frames).not.toContain(SECRET);

    // Nothing stored for the run (its events, metadata included), and nothing logged, carries the secret.
    const stored = JSON.stringify(await server.troupe.storage.events.list(run.runId, 0, 10_000));
    expect(stored).toContain('"metadata"');
    expect(stored).toContain(DIGEST);
    expect(stored).not.toContain(SECRET);
    expect(stderr.join('')).not.toContain(SECRET);
  });

  it("refuses a member's MCP server on loopback at save time and at run time", async () => {
    server = await startTestServer({ scenarioDir });
    const mallory = await member(server);
    const created = await mallory('/api/agent', { method: 'POST', body: headerAgent('probe-inside') });
    const body = (await created.json()) as { warnings: { code: string; value: string; message: string }[] };
    expect(created.status).toBe(201);
    expect(body.warnings.map(({ code, value }) => ({ code, value }))).toEqual([
      { code: 'mcp_not_allowed', value: 'web' },
    ]);
    expect(body.warnings[0]?.message).toContain('egress_denied: 127.0.0.1 is a loopback address');
    const draft = await mallory('/api/agent/build-report', {
      method: 'POST',
      body: { config: headerAgent('x').config },
    });
    expect(JSON.stringify(await draft.json())).toContain('egress_denied');

    const run = await chat(mallory, 'probe-inside');
    expect(run.output).not.toContain('sha256:');
    expect(run.frames).not.toContain('sha256:');
    expect(stderr.join('')).toContain('egress_denied');
    expect(stderr.join('')).not.toContain(SECRET);
  });

  it('lets a member reach 127.0.0.1 when TROUPE_EGRESS_ALLOW lists it', async () => {
    const { egressAllow } = loadConfig({ TROUPE_EGRESS_ALLOW: '127.0.0.1' });
    server = await startTestServer({ scenarioDir, egressAllow });
    const mallory = await member(server);
    const created = await mallory('/api/agent', { method: 'POST', body: headerAgent('allowed-inside') });
    expect(((await created.json()) as { warnings: unknown[] }).warnings).toEqual([]);
    const run = await chat(mallory, 'allowed-inside');
    expect(run.output).toBe(`got ${DIGEST}`);
  });
});
