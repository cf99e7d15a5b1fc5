import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicy } from '../../core/egress/egress-policy.js';
import type { Agent, McpServerConfig } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import { executeTool } from '../../runtime/agent-loop/execute-tool.js';
import type { AnyTroupeTool } from '../../core/tools/troupe-tool.js';
import type { Resolver } from '../egress/create-egress-fetch.js';
import { createMcpToolSource, type McpToolSource } from './create-mcp-tool-source.js';
import { startHttpTestServer, type HttpTestServer } from '../../../test/helpers/mcp/start-mcp-test-server.js';

const MEMBER = 'usr_member';
const ADMIN = 'usr_admin';

function agentOf(owner: string, servers: McpServerConfig[]): Agent {
  return {
    id: `agt_${owner}`,
    slug: `agent-of-${owner}`,
    name: 'agent',
    description: '',
    backend: 'chat',
    is_subagent: false,
    owner_id: owner,
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

async function call(tools: AnyTroupeTool[], name: string, input: unknown) {
  const tool = tools.find((candidate) => candidate.name === name);
  const context = {
    run: { id: 'run_x' } as Run,
    toolCallId: 'c1',
    abortSignal: new AbortController().signal,
    emit: () => Promise.resolve(),
    workdir: '/tmp',
  };
  return executeTool({
    run: context.run,
    agent: agentOf(MEMBER, []),
    toolCallId: 'c1',
    toolName: name,
    input,
    tool,
    context,
  });
}

let mcp: HttpTestServer;
let source: McpToolSource | undefined;
const warnings: string[] = [];
beforeAll(async () => {
  mcp = await startHttpTestServer();
}, 90_000);
afterAll(async () => mcp.stop());
afterEach(async () => {
  await source?.close();
  source = undefined;
  warnings.length = 0;
});

/** The composition root's rule: the policy binds agents of non-admin owners. */
function sourceWith(allow: string[] = [], resolve?: Resolver): McpToolSource {
  source = createMcpToolSource({
    allowStdio: () => false,
    connectTimeoutMs: 30_000,
    warn: (message) => warnings.push(message),
    egress: {
      policy: createEgressPolicy(allow),
      appliesTo: (agent) => agent.owner_id !== ADMIN,
      ...(resolve ? { resolve } : {}),
    },
  });
  return source;
}

const SLOW = { timeout: 60_000 };

describe('MCP http servers behind the egress policy (docs/egress-and-secrets.md)', SLOW, () => {
  it("refuses a member's server on loopback: no tools at run time, `refused` in the build report", async () => {
    const member = agentOf(MEMBER, [mcp.config('web')]);
    const guarded = sourceWith();
    expect(await guarded.toolsFor(member)).toEqual([]);
    expect(warnings.join('\n')).toContain('egress_denied: 127.0.0.1 is a loopback address');
    const probe = await guarded.probe(member, { timeoutMs: 5_000 });
    expect(probe.tool_names).toEqual([]);
    expect(probe.unreachable).toEqual([]);
    expect(probe.refused.map(({ server, prefix }) => ({ server, prefix }))).toEqual([
      { server: 'web', prefix: 'mcp__web__' },
    ]);
    expect(probe.refused[0]?.message).toMatch(/^egress_denied: 127\.0\.0\.1 is a loopback address/);
  });

  it.each(['http://2130706433', 'http://0x7f.1', 'http://localhost', 'http://[::ffff:127.0.0.1]'])(
    'refuses the same server written as %s',
    async (base) => {
      const url = `${base}:${new URL(mcp.url).port}/mcp`;
      const probe = await sourceWith().probe(agentOf(MEMBER, [{ name: 'web', transport: 'http', url }]), {
        timeoutMs: 5_000,
      });
      expect(probe.refused.map((entry) => entry.server)).toEqual(['web']);
    },
  );

  it('refuses a name that resolves to loopback, after DNS', async () => {
    const resolve: Resolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    const url = `http://mcp.looks-public.example:${new URL(mcp.url).port}/mcp`;
    const guarded = sourceWith([], resolve);
    const probe = await guarded.probe(agentOf(MEMBER, [{ name: 'web', transport: 'http', url }]), {
      timeoutMs: 10_000,
    });
    expect(probe.refused.map(({ server, prefix }) => ({ server, prefix }))).toEqual([
      { server: 'web', prefix: 'mcp__web__' },
    ]);
    expect(probe.refused[0]?.message).toMatch(
      /^egress_denied: mcp\.looks-public\.example resolves to a loopback address/,
    );
    expect(await guarded.toolsFor(agentOf(MEMBER, [{ name: 'web', transport: 'http', url }]))).toEqual([]);
  });

  it("lets an admin's agent reach it, without lending that connection to a member's agent", async () => {
    const guarded = sourceWith();
    const adminTools = await guarded.toolsFor(agentOf(ADMIN, [mcp.config('web')]));
    expect(await call(adminTools, 'mcp__web__echo', { text: 'admin' })).toEqual({
      output: 'echo: admin',
      isError: false,
    });
    expect(await guarded.toolsFor(agentOf(MEMBER, [mcp.config('web')]))).toEqual([]);
  });

  it('lets a member reach it when TROUPE_EGRESS_ALLOW lists 127.0.0.1, through the pinned fetch', async () => {
    const tools = await sourceWith(['127.0.0.1']).toolsFor(
      agentOf(MEMBER, [mcp.config('web', { headers: { 'x-api-key': 'k-123' } })]),
    );
    expect(await call(tools, 'mcp__web__echo', { text: 'member' })).toEqual({
      output: 'echo: member',
      isError: false,
    });
    expect(await call(tools, 'mcp__web__header', { name: 'x-api-key' })).toEqual({
      output: `sha256:${createHash('sha256').update('k-123').digest('hex')}`,
      isError: false,
    });
  });
});

describe('MCP failures never echo what the remote end sent', SLOW, () => {
  let junk: Server;
  let port: number;
  beforeAll(async () => {
    junk = createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/iam' });
        res.end();
        return;
      }
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('TOPSECRET internal admin panel');
    });
    await new Promise<void>((resolve) => junk.listen(0, '127.0.0.1', resolve));
    port = (junk.address() as AddressInfo).port;
  });
  afterAll(async () => {
    junk.closeAllConnections();
    await new Promise((resolve) => junk.close(resolve));
  });

  it('reports an HTTP error by its status only', async () => {
    const server: McpServerConfig = { name: 'junk', transport: 'http', url: `http://127.0.0.1:${port}/mcp` };
    const probe = await sourceWith(['127.0.0.1']).probe(agentOf(MEMBER, [server]), { timeoutMs: 5_000 });
    expect(probe.unreachable).toEqual([
      {
        server: 'junk',
        prefix: 'mcp__junk__',
        message: 'MCP server "junk" is unavailable: returned HTTP 500',
      },
    ]);
    expect(JSON.stringify(probe)).not.toContain('TOPSECRET');
  });

  it('does not follow a redirect to another origin, nor name its target', async () => {
    const server: McpServerConfig = {
      name: 'junk',
      transport: 'http',
      url: `http://127.0.0.1:${port}/redirect`,
    };
    const probe = await sourceWith(['127.0.0.1']).probe(agentOf(MEMBER, [server]), { timeoutMs: 5_000 });
    expect(probe.unreachable[0]?.message).toBe(
      'MCP server "junk" is unavailable: answered with a redirect (HTTP 307), which is not followed',
    );
    expect(JSON.stringify(probe)).not.toContain('169.254');
  });

  it('reports a refused connection by its socket code', async () => {
    const server: McpServerConfig = { name: 'dead', transport: 'http', url: 'http://127.0.0.1:9/mcp' };
    const probe = await sourceWith(['127.0.0.1']).probe(agentOf(MEMBER, [server]), { timeoutMs: 5_000 });
    expect(probe.unreachable[0]?.message).toBe(
      'MCP server "dead" is unavailable: could not be reached (ECONNREFUSED)',
    );
  });
});
