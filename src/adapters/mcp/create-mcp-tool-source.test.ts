import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isTroupeError } from '../../core/errors.js';
import type { Agent, McpServerConfig } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import { executeTool } from '../../runtime/agent-loop/execute-tool.js';
import type { AnyTroupeTool, ToolContext } from '../../core/tools/troupe-tool.js';
import { createMcpToolSource, type McpToolSource } from './create-mcp-tool-source.js';
import {
  startHttpTestServer,
  stdioTestServer,
  type HttpTestServer,
} from '../../../test/helpers/mcp/start-mcp-test-server.js';

function agentWith(servers: McpServerConfig[]): Agent {
  return {
    id: 'agt_mcp',
    slug: 'mcp-agent',
    name: 'mcp-agent',
    description: '',
    backend: 'chat',
    is_subagent: false,
    owner_id: 'usr_1',
    visibility: 'private',
    config: { mcp_servers: servers },
    status: 'draft',
    delegatable: true,
    delegation_brief: null,
    is_default: false,
    deleted_at: null,
    created_at: '',
    updated_at: '',
  };
}

function context(signal = new AbortController().signal): ToolContext {
  return {
    run: { id: 'run_mcp' } as Run,
    toolCallId: 'call_1',
    abortSignal: signal,
    emit: () => Promise.resolve(),
    workdir: '/tmp',
  };
}

/** Calls a tool the way the agent loop does: validation, execution, errors as results. */
async function call(tools: AnyTroupeTool[], name: string, input: unknown, signal?: AbortSignal) {
  const tool = tools.find((candidate) => candidate.name === name);
  const ctx = context(signal);
  return executeTool({
    run: ctx.run,
    agent: agentWith([]),
    toolCallId: 'call_1',
    toolName: name,
    input,
    tool,
    context: ctx,
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Every server is a real process started through tsx: seconds each on a busy machine, so generous deadlines.
const CONNECT_TIMEOUT_MS = 45_000;
const SLOW = { timeout: 90_000 };

let source: McpToolSource | undefined;
const warnings: string[] = [];
afterEach(async () => {
  await source?.close();
  source = undefined;
  warnings.length = 0;
});
const makeSource = (allowStdio = true): McpToolSource => {
  source = createMcpToolSource({
    allowStdio: () => allowStdio,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    warn: (message) => warnings.push(message),
  });
  return source;
};

describe('MCP over stdio: one shared server process', SLOW, () => {
  // These cases only list and call, so they share one source and one process.
  let shared: McpToolSource;
  let tools: AnyTroupeTool[];
  beforeAll(async () => {
    shared = createMcpToolSource({ allowStdio: () => true, connectTimeoutMs: CONNECT_TIMEOUT_MS });
    tools = await shared.toolsFor(agentWith([stdioTestServer('test')]));
  }, 90_000);
  afterAll(async () => shared.close());

  it('lists the tools as mcp__{server}__{tool} with their schemas, and calls them', async () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ['add', 'crash', 'echo', 'fail', 'header', 'pid', 'slow'].map((name) => `mcp__test__${name}`),
    );
    expect(tools.find((tool) => tool.name === 'mcp__test__echo')?.description).toBe('Echoes the text back');
    expect(await call(tools, 'mcp__test__echo', { text: 'hi' })).toEqual({
      output: 'echo: hi',
      isError: false,
    });
    expect(await call(tools, 'mcp__test__add', { a: 2, b: 3 })).toEqual({ output: '5', isError: false });
  });

  it('validates arguments against the converted JSON schema before calling the server', async () => {
    const add = tools.find((tool) => tool.name === 'mcp__test__add');
    expect(z.toJSONSchema(add?.inputSchema ?? z.never())).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a'],
    });
    const result = await call(tools, 'mcp__test__add', { a: 'two' });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^Invalid arguments for tool mcp__test__add/);
  });

  it("takes each tool's effect class from its annotations, overridden by the server's config", async () => {
    const effects = (listed: AnyTroupeTool[]) =>
      Object.fromEntries(listed.map((tool) => [tool.name.replace('mcp__test__', ''), tool.effect]));
    // echo says readOnlyHint, add idempotentHint (and destructiveHint), the others nothing.
    expect(effects(tools)).toMatchObject({ echo: 'read_only', add: 'idempotent', slow: 'external' });
    const overridden = await shared.toolsFor(
      agentWith([stdioTestServer('test', { effect: 'idempotent', tool_effects: { echo: 'external' } })]),
    );
    expect(effects(overridden)).toMatchObject({ echo: 'external', add: 'idempotent', slow: 'idempotent' });
  });

  it('reuses one process per server config, across calls and agents', async () => {
    const second = await shared.toolsFor({ ...agentWith([stdioTestServer('test')]), id: 'agt_other' });
    const a = await call(tools, 'mcp__test__pid', {});
    const b = await call(second, 'mcp__test__pid', {});
    expect(a.output).toBe(b.output);
  });

  it('turns an isError result into a clear tool error', async () => {
    expect(await call(tools, 'mcp__test__fail', {})).toEqual({ output: 'the tool says no', isError: true });
  });

  it('raises TroupeErrors with stable codes', async () => {
    const tool = tools.find((candidate) => candidate.name === 'mcp__test__fail');
    await expect(tool?.execute({}, context())).rejects.toSatisfy((error) =>
      isTroupeError(error, 'mcp_tool_failed'),
    );
  });

  it('aborts a call when the run is cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('run cancelled')), 200);
    await expect(call(tools, 'mcp__test__slow', { ms: 5_000 }, controller.signal)).rejects.toThrow(
      'run cancelled',
    );
  });
});

describe('MCP over stdio: lifecycle', SLOW, () => {
  it('times out a slow call with a clear error and keeps the connection usable', async () => {
    const tools = await makeSource().toolsFor(agentWith([stdioTestServer('test', { timeout_ms: 300 })]));
    const started = Date.now();
    const result = await call(tools, 'mcp__test__slow', { ms: 5_000 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result).toEqual({
      output: 'MCP tool "slow" on server "test" timed out after 300 ms',
      isError: true,
    });
    expect(await call(tools, 'mcp__test__echo', { text: 'still here' })).toEqual({
      output: 'echo: still here',
      isError: false,
    });
  });

  it("lists a server's tools by name, whatever order the server lists them in", async () => {
    const mcp = makeSource();
    const listed = await mcp.toolsFor(agentWith([stdioTestServer('test')]));
    const reversed = await mcp.toolsFor(
      agentWith([stdioTestServer('test', { args: [...(stdioTestServer().args ?? []), '--reverse-tools'] })]),
    );
    const names = listed.map((tool) => tool.name);
    expect(names).toEqual([...names].sort());
    expect(reversed.map((tool) => tool.name)).toEqual(names);
    expect(reversed.map((tool) => tool.description)).toEqual(listed.map((tool) => tool.description));
  });

  it('answers a call to a crashed server with a clear error, then reconnects on the next call', async () => {
    const tools = await makeSource().toolsFor(agentWith([stdioTestServer('test')]));
    const pid = Number((await call(tools, 'mcp__test__pid', {})).output);
    const crashed = await call(tools, 'mcp__test__crash', {});
    expect(crashed.isError).toBe(true);
    expect(crashed.output).toMatch(/^MCP server "test" is unavailable: /);
    await waitFor(() => !isAlive(pid));
    const after = await call(tools, 'mcp__test__pid', {});
    expect(after.isError).toBe(false);
    expect(Number(after.output)).not.toBe(pid);
  });

  it('leaves out the tools of a server that cannot start, and never fails', async () => {
    const broken = stdioTestServer('broken', { command: '/nonexistent/mcp-server', args: [] });
    const tools = await makeSource().toolsFor(agentWith([broken, stdioTestServer('test')]));
    expect(tools.some((tool) => tool.name.startsWith('mcp__broken__'))).toBe(false);
    expect(tools.some((tool) => tool.name === 'mcp__test__echo')).toBe(true);
    expect(warnings.join('\n')).toContain('MCP server "broken" is unavailable');
  });

  it('refuses stdio servers the policy does not allow', async () => {
    const refusing = makeSource(false);
    const agent = agentWith([stdioTestServer('test')]);
    expect(await refusing.toolsFor(agent)).toEqual([]);
    const probe = await refusing.probe(agent, { timeoutMs: 2_000 });
    expect(probe.refused.map(({ server, prefix }) => ({ server, prefix }))).toEqual([
      { server: 'test', prefix: 'mcp__test__' },
    ]);
    expect(probe.refused[0]?.message).toContain('admin');
  });

  it('closes its server processes on shutdown', async () => {
    const closing = makeSource();
    const tools = await closing.toolsFor(agentWith([stdioTestServer('test')]));
    const pid = Number((await call(tools, 'mcp__test__pid', {})).output);
    expect(isAlive(pid)).toBe(true);
    await closing.close();
    await waitFor(() => !isAlive(pid));
  });

  it('probes tool names and reports servers that do not answer in time', async () => {
    const agent = agentWith([
      stdioTestServer('test'),
      stdioTestServer('gone', { command: '/nonexistent/mcp' }),
    ]);
    const probe = await makeSource().probe(agent, { timeoutMs: CONNECT_TIMEOUT_MS });
    expect(probe.tool_names).toContain('mcp__test__echo');
    expect(probe.unreachable.map(({ server, prefix }) => ({ server, prefix }))).toEqual([
      { server: 'gone', prefix: 'mcp__gone__' },
    ]);
    expect(probe.unreachable[0]?.message).toContain('unavailable');
  });
});

describe('MCP over Streamable HTTP (a real server process on 127.0.0.1)', SLOW, () => {
  let http: HttpTestServer;
  beforeAll(async () => {
    http = await startHttpTestServer();
  }, 90_000);
  afterAll(async () => http.stop());

  it('lists and calls tools', async () => {
    const tools = await makeSource().toolsFor(agentWith([http.config('web')]));
    expect(tools.map((tool) => tool.name)).toContain('mcp__web__echo');
    expect(await call(tools, 'mcp__web__echo', { text: 'over http' })).toEqual({
      output: 'echo: over http',
      isError: false,
    });
    expect(await call(tools, 'mcp__web__fail', {})).toEqual({ output: 'the tool says no', isError: true });
  });

  it('times out over HTTP too', async () => {
    const tools = await makeSource().toolsFor(agentWith([http.config('web', { timeout_ms: 300 })]));
    const result = await call(tools, 'mcp__web__slow', { ms: 3_000 });
    expect(result).toEqual({
      output: 'MCP tool "slow" on server "web" timed out after 300 ms',
      isError: true,
    });
  });

  it('reports an unreachable URL without failing', async () => {
    const dead: McpServerConfig = {
      name: 'dead',
      transport: 'http',
      url: 'http://127.0.0.1:9/mcp',
      timeout_ms: 2_000,
    };
    const deadSource = makeSource();
    expect(await deadSource.toolsFor(agentWith([dead]))).toEqual([]);
    const probe = await deadSource.probe(agentWith([dead]), { timeoutMs: 2_000 });
    expect(probe.unreachable[0]).toMatchObject({ server: 'dead', prefix: 'mcp__dead__' });
  });

  it('answers with a clear error once the server went down', async () => {
    const own = await startHttpTestServer();
    const tools = await makeSource().toolsFor(agentWith([own.config('web')]));
    expect((await call(tools, 'mcp__web__echo', { text: 'up' })).isError).toBe(false);
    await own.stop();
    const result = await call(tools, 'mcp__web__echo', { text: 'down' });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^MCP server "web" is unavailable: /);
  });
});
