import { afterEach, describe, expect, it } from 'vitest';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { createMcpToolSource, type McpToolSource } from './create-mcp-tool-source.js';
import { stdioTestServer } from '../../../test/helpers/mcp/start-mcp-test-server.js';

let harness: RuntimeHarness | undefined;
let source: McpToolSource | undefined;
afterEach(async () => {
  await harness?.close();
  await source?.close();
  harness = undefined;
  source = undefined;
});

const MAIN = `
rules:
  - when: { contains: delegate }
    steps:
      - tool_calls: [{ name: task, args: { subagent_slug: searcher, description: "echo {{input}}" } }]
      - text: "Main got: {{last_tool_result}}"
  - steps:
      - tool_calls: [{ name: mcp__test__echo, args: { text: "{{input}}" } }]
      - text: "Main got: {{last_tool_result}}"
`;
const SEARCHER = `
rules:
  - steps:
      - tool_calls: [{ name: mcp__test__add, args: { a: 2, b: 40 } }]
      - text: "sum is {{last_tool_result}}"
`;

async function setup() {
  source = createMcpToolSource({ allowStdio: () => true, connectTimeoutMs: 45_000 });
  const seenByChild: string[][] = [];
  harness = await createRuntimeHarness({
    scenarios: { main: MAIN, searcher: SEARCHER },
    toolSource: source,
    middleware: () =>
      Promise.resolve([
        {
          name: 'probe',
          wrapModelCall(request, next) {
            if (request.run.run_type === 'subagent')
              seenByChild.push(request.tools.map((tool) => tool.name).sort());
            return next(request);
          },
        },
      ]),
  });
  const user = await harness.createUser('admin', 'admin');
  const main = await harness.createAgent(user, 'main', {
    model: 'scripted:main',
    tools: ['read_file'],
    mcp_servers: [stdioTestServer('test')],
    subagent_specs: [
      {
        name: 'searcher',
        description: 'Adds numbers',
        system_prompt: 'Add.',
        tools: ['mcp__test__a*'],
        model: 'scripted:searcher',
      },
    ],
  });
  const conversation = await harness.createConversation(user, main);
  return { h: harness, user, conversation, seenByChild };
}

// Real server processes started through tsx: seconds each on a busy machine.
describe('an agent run with MCP tools', { timeout: 90_000 }, () => {
  it('calls mcp__{server}__{tool} on a real server process', async () => {
    const { h, user, conversation } = await setup();
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'hello mcp' });
    const done = await h.runs.await(user, run.id, 80_000);
    expect(done.run.status).toBe('completed');
    expect(done.run.output).toBe('Main got: echo: hello mcp');
    const [result] = toolResults(await h.storage.messages.list(conversation.thread_id), 'mcp__test__echo');
    expect(result).toEqual({ name: 'mcp__test__echo', text: 'echo: hello mcp', isError: false });
  });

  it('gives an inline subagent exactly the MCP tools its pattern resolves to', async () => {
    const { h, user, conversation, seenByChild } = await setup();
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'delegate this' });
    const done = await h.runs.await(user, run.id, 80_000);
    expect(done.run.status).toBe('completed');
    expect(done.run.output).toContain('sum is 42');
    expect(seenByChild[0]).toEqual(['mcp__test__add']);
  });
});
