import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REDACTED_SECRET } from '../core/mcp-secrets.js';
import type { Agent } from '../core/records/agent.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;

beforeEach(async () => {
  ctx = await createTestContext();
  alice = await ctx.createUser('alice');
  bob = await ctx.createUser('bob');
  admin = await ctx.createUser('root', 'admin');
});
afterEach(async () => ctx.close());

const HEADER_SECRET = 'Bearer hdr-SECRET-0001';
const ENV_SECRET = 'env-SECRET-0002';
const SECRETS = [HEADER_SECRET, ENV_SECRET];

const SERVERS = [
  {
    name: 'docs',
    transport: 'http',
    url: 'https://mcp.example.com/mcp',
    headers: { authorization: HEADER_SECRET },
  },
  {
    name: 'local',
    transport: 'stdio',
    command: 'mcp-local',
    args: ['--fast'],
    env: { API_TOKEN: ENV_SECRET },
  },
];
const REDACTED_SERVERS = [
  { ...SERVERS[0], headers: { authorization: REDACTED_SECRET } },
  { ...SERVERS[1], env: { API_TOKEN: REDACTED_SECRET } },
];

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
  expect(text).not.toContain('SECRET-000');
}

/** The stored config, read straight from the SQLite file. */
function storedConfig(id: string): { mcp_servers: typeof SERVERS } {
  const row = ctx.rawRows('agents').find((candidate) => candidate.id === id);
  return JSON.parse(String(row?.config)) as { mcp_servers: typeof SERVERS };
}

async function createPublic(): Promise<Agent> {
  const response = await ctx.request('POST', '/api/agent', {
    token: alice.token,
    body: { name: 'Tools', slug: 'tools', visibility: 'public', config: { mcp_servers: SERVERS } },
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  expectNoSecret(text);
  return (JSON.parse(text) as { agent: Agent }).agent;
}

describe('MCP headers and env are write-only (docs/egress-and-secrets.md)', () => {
  it('redacts them in the create response, while storing the real values', async () => {
    const agent = await createPublic();
    expect(agent.config.mcp_servers).toEqual(REDACTED_SERVERS);
    expect(storedConfig(agent.id).mcp_servers).toEqual(SERVERS);
  });

  it('shows another user of a public agent no secret, in the list and the detail', async () => {
    const agent = await createPublic();
    for (const path of [
      '/api/agent',
      '/api/agent?include_subagents=true',
      `/api/agent/${agent.id}`,
      '/api/agent/tools',
    ]) {
      const response = await ctx.request('GET', path, { token: bob.token });
      const text = await response.text();
      expect(response.status, path).toBe(200);
      expect(text).toContain('"authorization"');
      expectNoSecret(text);
    }
    const detail = await json<{ agent: Agent }>(
      await ctx.request('GET', `/api/agent/${agent.id}`, { token: bob.token }),
      200,
    );
    expect(detail.agent.config.mcp_servers).toEqual(REDACTED_SERVERS);
  });

  it('shows the owner and an admin the placeholder too, on every route that answers with the agent', async () => {
    const agent = await createPublic();
    const reads = [
      await ctx.request('GET', `/api/agent/${agent.id}`, { token: alice.token }),
      await ctx.request('GET', '/api/agent', { token: alice.token }),
      await ctx.request('GET', `/api/agent/${agent.id}`, { token: admin.token }),
      await ctx.request('PUT', `/api/agent/${agent.id}`, {
        token: alice.token,
        body: { description: 'changed' },
      }),
      await ctx.request('POST', `/api/agent/${agent.id}/publish`, { token: alice.token }),
      await ctx.request('POST', `/api/agent/${agent.id}/unpublish`, { token: alice.token }),
      await ctx.request('POST', `/api/agent/${agent.id}/set_default`, { token: admin.token }),
      await ctx.request('GET', '/api/agent/default', { token: bob.token }),
      await ctx.request('GET', `/api/agent/${agent.id}/build-report`, { token: bob.token }),
    ];
    for (const response of reads) {
      const text = await response.text();
      expect(response.status, text).toBeLessThan(300);
      expectNoSecret(text);
    }
  });

  it('keeps the stored values when the placeholder comes back in an update (a console round trip)', async () => {
    const agent = await createPublic();
    const read = await json<{ agent: Agent }>(
      await ctx.request('GET', `/api/agent/${agent.id}`, { token: alice.token }),
      200,
    );
    const updated = await json<{ agent: Agent }>(
      await ctx.request('PUT', `/api/agent/${agent.id}`, {
        token: alice.token,
        body: { config: { ...read.agent.config, system_prompt: 'Be brief.' } },
      }),
      200,
    );
    expect(updated.agent.config.mcp_servers).toEqual(REDACTED_SERVERS);
    expect(storedConfig(agent.id).mcp_servers).toEqual(SERVERS);
  });

  it('replaces a value that is sent for real, and keeps the others', async () => {
    const agent = await createPublic();
    const servers = [
      { ...REDACTED_SERVERS[0], headers: { authorization: 'Bearer new-one', 'x-extra': 'plain' } },
      REDACTED_SERVERS[1],
    ];
    await json(
      await ctx.request('PUT', `/api/agent/${agent.id}`, {
        token: alice.token,
        body: { config: { mcp_servers: servers } },
      }),
      200,
    );
    expect(storedConfig(agent.id).mcp_servers).toEqual([
      { ...SERVERS[0], headers: { authorization: 'Bearer new-one', 'x-extra': 'plain' } },
      SERVERS[1],
    ]);
  });

  it('never carries a stored secret over to another URL or command, nor stores the placeholder', async () => {
    const agent = await createPublic();
    const before = storedConfig(agent.id);
    const moved = [{ ...REDACTED_SERVERS[0], url: 'https://attacker.example/mcp' }, REDACTED_SERVERS[1]];
    const refused = await expectError(
      await ctx.request('PUT', `/api/agent/${agent.id}`, {
        token: alice.token,
        body: { config: { mcp_servers: moved } },
      }),
      400,
      'validation_failed',
    );
    expect(refused.error.details?.issues).toEqual([
      expect.objectContaining({ path: 'config.mcp_servers.0.headers.authorization' }),
    ]);
    const newKey = [
      { ...REDACTED_SERVERS[0], headers: { authorization: REDACTED_SECRET, 'x-new': REDACTED_SECRET } },
    ];
    await expectError(
      await ctx.request('PUT', `/api/agent/${agent.id}`, {
        token: alice.token,
        body: { config: { mcp_servers: newKey } },
      }),
      400,
      'validation_failed',
    );
    const otherArgs = [REDACTED_SERVERS[0], { ...REDACTED_SERVERS[1], args: ['--leak'] }];
    await expectError(
      await ctx.request('PUT', `/api/agent/${agent.id}`, {
        token: alice.token,
        body: { config: { mcp_servers: otherArgs } },
      }),
      400,
      'validation_failed',
    );
    expect(storedConfig(agent.id)).toEqual(before);
    await expectError(
      await ctx.request('POST', '/api/agent', {
        token: alice.token,
        body: { name: 'Copy', config: { mcp_servers: REDACTED_SERVERS } },
      }),
      400,
      'validation_failed',
    );
  });

  it('lets only the owner or an admin fill a draft report from the stored secrets', async () => {
    const agent = await createPublic();
    const body = { config: { mcp_servers: REDACTED_SERVERS }, agent_id: agent.id };
    expect((await ctx.request('POST', '/api/agent/build-report', { token: alice.token, body })).status).toBe(
      200,
    );
    expect((await ctx.request('POST', '/api/agent/build-report', { token: admin.token, body })).status).toBe(
      200,
    );
    await expectError(
      await ctx.request('POST', '/api/agent/build-report', { token: bob.token, body }),
      403,
      'forbidden',
    );
    await ctx.request('PUT', `/api/agent/${agent.id}`, {
      token: alice.token,
      body: { visibility: 'private' },
    });
    await expectError(
      await ctx.request('POST', '/api/agent/build-report', { token: bob.token, body }),
      404,
      'agent_not_found',
    );
  });
});
