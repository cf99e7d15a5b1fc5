import { afterEach, describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../core/records/agent.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import {
  BACKENDS,
  startBackend,
  type BackendName,
  type ScriptedBackend,
  type ScriptRule,
} from '../../../test/helpers/model-backends.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { createMcpToolSource, type McpToolSource } from './create-mcp-tool-source.js';
import { startHttpTestServer, type HttpTestServer } from '../../../test/helpers/mcp/start-mcp-test-server.js';

// The fake servers' model names are unknown to the SDK, which says so on every call.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/**
 * An MCP tool whose server is down answers the model with a clear error tool result, through the same tool
 * chain as every call, and the run goes on — never "Invalid arguments … unavailable tool" from the SDK.
 */

let harness: RuntimeHarness | undefined;
let backend: ScriptedBackend | undefined;
let source: McpToolSource | undefined;
let http: HttpTestServer | undefined;
afterEach(async () => {
  await harness?.close();
  await backend?.close();
  await source?.close();
  await http?.stop();
  harness = undefined;
  backend = undefined;
  source = undefined;
  http = undefined;
});

async function setup(name: BackendName, rules: ScriptRule[], config: Partial<AgentConfig>) {
  backend = await startBackend(name, rules);
  source = createMcpToolSource({ allowStdio: () => false, connectTimeoutMs: 5_000 });
  const h = await createRuntimeHarness({
    scenarios: backend.scenarios,
    models: backend.models,
    toolSource: source,
  });
  harness = h;
  const alice = await h.createUser('alice');
  const agent = await h.createAgent(alice, 'main', { model: backend.spec, tools: ['ls'], ...config });
  const conversation = await h.createConversation(alice, agent);
  const ask = async (content: string) => {
    const { run } = await h.runs.postMessage(alice, conversation.id, { content });
    const done = await h.runs.await(alice, run.id, 30_000);
    expect(done.wait_timed_out).toBe(false);
    return done.run;
  };
  return { h, ask, thread: () => h.storage.messages.list(conversation.thread_id) };
}

describe.each(BACKENDS)('an MCP tool whose server is down (%s)', { timeout: 60_000 }, (name) => {
  it('never reached: the call is refused as not available, naming the server', async () => {
    const rules: ScriptRule[] = [
      {
        steps: [
          { tool_calls: [{ name: 'mcp__web__echo', args: { text: 'hi' }, unoffered: true }] },
          { text: 'main done' },
        ],
      },
    ];
    const world = await setup(name, rules, {
      mcp_servers: [{ name: 'web', transport: 'http', url: 'http://127.0.0.1:9/mcp', timeout_ms: 2_000 }],
    });
    expect(await world.ask('go')).toMatchObject({ status: 'completed', output: 'main done' });
    expect(toolResults(await world.thread())).toEqual([
      {
        name: 'mcp__web__echo',
        text:
          'tool mcp__web__echo is not available to this agent: its MCP server "web" did not offer it for this run ' +
          '(the server may be down or no longer have this tool)',
        isError: true,
      },
    ]);
  });

  it('gone down after it was listed: the call answers that the server is unavailable', async () => {
    http = await startHttpTestServer();
    const rules: ScriptRule[] = [
      {
        steps: [
          { tool_calls: [{ name: 'mcp__web__echo', args: { text: '{{input}}' } }] },
          { text: 'main done' },
        ],
      },
    ];
    const world = await setup(name, rules, { mcp_servers: [http.config('web')] });
    expect(await world.ask('up')).toMatchObject({ status: 'completed', output: 'main done' });
    await http.stop();
    expect(await world.ask('down')).toMatchObject({ status: 'completed', output: 'main done' });
    const results = toolResults(await world.thread(), 'mcp__web__echo');
    expect(results[0]).toEqual({ name: 'mcp__web__echo', text: 'echo: up', isError: false });
    expect(results[1]?.isError).toBe(true);
    expect(results[1]?.text).toMatch(/^MCP server "web" is unavailable: /);
  });
});
