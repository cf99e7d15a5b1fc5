import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '../core/records/agent.js';
import type { BuildReportEntry } from '../core/subagent-specs/build-report-entry.js';
import type { BuildReport } from '../runtime/build-report/compute-build-report.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;

beforeEach(async () => {
  ctx = await createTestContext();
  alice = await ctx.createUser('alice');
  bob = await ctx.createUser('bob');
});
afterEach(async () => ctx.close());

const GOOD = { name: 'scanner', description: 'Scans', system_prompt: 'Scan.', tools: ['read_file', 'grep'] };
const SPECS = [
  GOOD,
  { name: 'task', description: 'x', system_prompt: 'x' },
  { name: 'thin', description: 'x', system_prompt: 'x', tools: ['nope', 'delegate'] },
  42,
];
const codes = (entries: BuildReportEntry[]) => entries.map((entry) => `${entry.spec_index}:${entry.code}`);
const EXPECTED = ['1:reserved_name', '2:reserved_tool', '2:unknown_tool', '2:no_tools', '3:not_an_object'];

async function create(user: TestUser, body: Record<string, unknown>) {
  return json<{ agent: Agent; warnings: BuildReportEntry[] }>(
    await ctx.request('POST', '/api/agent', { token: user.token, body }),
    201,
  );
}

describe('build report in create and update responses', () => {
  it('answers a create with { agent, warnings } listing every drop, and stores the config as sent', async () => {
    const created = await create(alice, {
      name: 'Main',
      slug: 'main',
      config: { tools: ['read_file', 'grep', 'ls'], subagent_specs: SPECS },
    });
    expect(Object.keys(created).sort()).toEqual(['agent', 'warnings']);
    expect(created.agent.config.subagent_specs).toEqual(SPECS);
    expect(codes(created.warnings)).toEqual(EXPECTED);
    expect(created.warnings[0]).toEqual({
      code: 'reserved_name',
      spec_index: 1,
      spec_name: 'task',
      value: 'task',
      message: 'Spec "task": "task" is a reserved name',
    });
  });

  it('answers a clean agent with empty warnings, and an update with the new report', async () => {
    const created = await create(alice, { name: 'Main', slug: 'main', config: { subagent_specs: [GOOD] } });
    expect(created.warnings).toEqual([]);
    const updated = await json<{ agent: Agent; warnings: BuildReportEntry[] }>(
      await ctx.request('PUT', '/api/agent/main', {
        token: alice.token,
        body: { config: { tools: ['ls'], subagent_specs: [GOOD] } },
      }),
      200,
    );
    expect(updated.agent.config.tools).toEqual(['ls']);
    expect(updated.warnings.map((entry) => [entry.code, entry.value])).toEqual([
      ['unknown_tool', 'read_file'],
      ['unknown_tool', 'grep'],
      ['no_tools', 'scanner'],
    ]);
  });
});

describe('GET /api/agent/{id}/build-report', () => {
  it('returns the report, the resolved subagents and the parent tool set', async () => {
    const { agent } = await create(alice, {
      name: 'Main',
      slug: 'main',
      config: { tools: ['read_file', 'grep', 'ls'], subagent_specs: SPECS },
    });
    const report = await json<BuildReport>(
      await ctx.request('GET', `/api/agent/${agent.id}/build-report`, { token: alice.token }),
      200,
    );
    expect(codes(report.report)).toEqual(EXPECTED);
    expect(report.dropped).toBe(true);
    expect(report.parent_tools).toEqual(['read_file', 'ls', 'grep']);
    expect(report.subagents.map((subagent) => [subagent.name, subagent.source, subagent.tools])).toEqual([
      ['general-purpose', 'builtin', ['read_file', 'ls', 'grep']],
      ['scanner', 'inline', ['read_file', 'grep']],
    ]);
    // By slug, too.
    expect((await ctx.request('GET', '/api/agent/main/build-report', { token: alice.token })).status).toBe(
      200,
    );
  });

  it('needs the same access as the agent detail', async () => {
    const { agent } = await create(alice, { name: 'Main', slug: 'main', config: { subagent_specs: SPECS } });
    await expectError(
      await ctx.request('GET', `/api/agent/${agent.id}/build-report`, { token: bob.token }),
      404,
      'agent_not_found',
    );
    await ctx.request('PUT', `/api/agent/${agent.id}`, {
      token: alice.token,
      body: { visibility: 'public' },
    });
    expect(
      (await ctx.request('GET', `/api/agent/${agent.id}/build-report`, { token: bob.token })).status,
    ).toBe(200);
    await expectError(await ctx.request('GET', `/api/agent/${agent.id}/build-report`), 401, 'unauthorized');
  });

  it('reports an inline spec that shadows a registered subagent the caller can see', async () => {
    await create(alice, { name: 'Helper', slug: 'helper', backend: 'subagent' });
    const { agent } = await create(alice, {
      name: 'Main',
      slug: 'main',
      config: { subagent_specs: [{ ...GOOD, name: 'helper' }] },
    });
    const report = await json<BuildReport>(
      await ctx.request('GET', `/api/agent/${agent.id}/build-report`, { token: alice.token }),
      200,
    );
    expect(report.report).toEqual([
      expect.objectContaining({ code: 'shadows_registered', spec_name: 'helper' }),
    ]);
    expect(report.dropped).toBe(false);
  });

  it('marks MCP tool names unverified when no MCP listing is available', async () => {
    const config = {
      mcp_servers: [{ name: 'docs', transport: 'http', url: 'http://127.0.0.1:9/mcp' }],
      subagent_specs: [{ ...GOOD, tools: ['mcp__docs__search', 'read_file'] }],
    };
    const { warnings } = await create(alice, { name: 'Main', slug: 'main', config });
    expect(warnings.map((entry) => entry.code)).toEqual(['unverified_tool']);
  });
});

describe('POST /api/agent/build-report (draft)', () => {
  it('reports a draft config without storing anything', async () => {
    const before = ctx.countRows();
    const report = await json<BuildReport>(
      await ctx.request('POST', '/api/agent/build-report', {
        token: alice.token,
        body: { config: { tools: ['*'], subagent_specs: SPECS } },
      }),
      200,
    );
    expect(codes(report.report)).toEqual(EXPECTED);
    expect(ctx.countRows()).toEqual(before);
  });

  it('validates the draft with the agent config schema', async () => {
    await expectError(
      await ctx.request('POST', '/api/agent/build-report', {
        token: alice.token,
        body: { config: { tool: ['x'] } },
      }),
      400,
      'validation_failed',
    );
    await expectError(
      await ctx.request('POST', '/api/agent/build-report', { token: alice.token, body: {} }),
      400,
      'validation_failed',
    );
  });
});
