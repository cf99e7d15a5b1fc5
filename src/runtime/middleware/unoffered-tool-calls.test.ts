import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../../test/helpers/close-after-each.js';
import type { Agent, AgentConfig } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import type { ThreadMessage } from '../../core/records/thread-message.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import {
  BACKENDS,
  startBackend,
  type BackendName,
  type ScriptRule,
} from '../../../test/helpers/model-backends.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { toolResultRefusal } from '../../core/thread/tool-result-marks.js';
import type { AnyTroupeTool } from '../../core/tools/troupe-tool.js';
import type {
  AgentMiddleware,
  ModelCallRequest,
  ToolCallRequest,
} from '../../core/ports/agent-middleware.js';
import { composeMiddleware } from './compose-middleware.js';
import { createToolAvailabilityMiddleware } from './tool-availability-middleware.js';

// The fake servers' model names are unknown to the SDK, which says so on every call.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/**
 * docs/subagents.md: a call to a tool the model was not offered is refused by the execution guard, with the spec's
 * texts, as an error tool result — the run goes on. The model is the scripted provider (calls marked
 * `unoffered`) or a fake OpenAI / Anthropic server that simply emits the call, as a real model may.
 */

const SUBAGENT_REFUSAL = (name: string) =>
  `tool ${name} is not available to subagents in this approval mode; hand the result back to the main agent`;

const PARENT = `
rules:
  - steps:
      - tool_calls: [{ name: task, args: { subagent_slug: helper, description: "try everything" } }]
      - text: "parent: {{last_tool_result}}"
`;

const byName = <T extends { name: string }>(items: T[]): T[] =>
  [...items].sort((a, b) => a.name.localeCompare(b.name));

const closeLater = closeAfterEach();

async function runAgent(
  name: BackendName,
  rules: ScriptRule[],
  config: Partial<AgentConfig>,
  options: { asSubagent?: boolean } = {},
): Promise<{ run: Run; thread: ThreadMessage[]; h: RuntimeHarness }> {
  const backend = await startBackend(name, rules, 'under_test');
  closeLater(backend);
  const h = await createRuntimeHarness({
    scenarios: { ...backend.scenarios, parent: PARENT },
    models: backend.models,
  });
  closeLater(h);
  const alice = await h.createUser('alice');
  await h.storage.users.setDelegationPolicy(alice.id, 'all', []);
  await h.createAgent(alice, 'expert', { model: 'scripted:parent' }, { status: 'published' });
  const underTest = { model: backend.spec, ...config };
  const agent = options.asSubagent
    ? (await h.createAgent(alice, 'helper', underTest, { backend: 'subagent', is_subagent: true }),
      await h.createAgent(alice, 'main', { model: 'scripted:parent', tool_approval_mode: 'default' }))
    : await h.createAgent(alice, 'main', underTest);
  const conversation = await h.createConversation(alice, agent);
  const { run } = await h.runs.postMessage(alice, conversation.id, { content: 'go' });
  const done = await h.runs.await(alice, run.id, 20_000);
  expect(done.wait_timed_out).toBe(false);
  const target = options.asSubagent ? (await h.storage.runs.listChildren(run.id))[0] : done.run;
  const settled = target ? (await h.runs.await(alice, target.id, 20_000)).run : done.run;
  return { run: settled, thread: await h.storage.messages.list(settled.thread_id), h };
}

describe.each(BACKENDS)('calls to tools the model was not offered (%s)', (name) => {
  it('a subagent calling write_file, task, delegate: docs/subagents.md refusal from the guard chain, and the run goes on', async () => {
    const rules: ScriptRule[] = [
      {
        steps: [
          {
            tool_calls: [
              { name: 'write_file', args: { path: 'x.txt', content: 'no' }, unoffered: true },
              { name: 'task', args: { subagent_slug: 'helper', description: 'nested' }, unoffered: true },
              { name: 'delegate', args: { expert: 'expert', task: 'escape' }, unoffered: true },
              { name: 'frobnicate', args: {}, unoffered: true },
            ],
          },
          { text: 'child done' },
        ],
      },
    ];
    const { run, thread, h } = await runAgent(
      name,
      rules,
      { tools: ['read_file', 'write_file', 'ls'] },
      { asSubagent: true },
    );
    expect(run).toMatchObject({ status: 'completed', output: 'child done', tool_approval_mode: 'default' });
    // Parallel calls: results land in any order.
    expect(byName(toolResults(thread))).toEqual(
      byName([
        { name: 'write_file', text: SUBAGENT_REFUSAL('write_file'), isError: true },
        { name: 'task', text: SUBAGENT_REFUSAL('task'), isError: true },
        { name: 'delegate', text: SUBAGENT_REFUSAL('delegate'), isError: true },
        { name: 'frobnicate', text: 'tool frobnicate is not available to this agent', isError: true },
      ]),
    );
    // Clients read the refusal as data, live and from the stored thread alike.
    const refusals = thread.flatMap((row) =>
      row.message.role === 'tool' ? row.message.content.map((part) => toolResultRefusal(part)) : [],
    );
    const events = await h.storage.events.list(run.id, 0, 1000);
    const refusedEvents = events.flatMap((event) =>
      event.type === 'tool_result' ? [event.payload.refusal] : [],
    );
    for (const seen of [refusals, refusedEvents]) {
      expect(
        seen
          .map((refusal) => `${refusal?.code}:${refusal?.code === 'tool_not_available' ? refusal.tool : ''}`)
          .sort(),
      ).toEqual(['delegate', 'frobnicate', 'task', 'write_file'].map((tool) => `tool_not_available:${tool}`));
    }
    // Nothing escaped: no file, no nested child, no delegation.
    expect(await h.storage.runs.listChildren(run.id)).toEqual([]);
  });

  it('a main agent calling a tool it does not have: refused, not parked for approval, not "invalid arguments"', async () => {
    const rules: ScriptRule[] = [
      {
        steps: [
          {
            tool_calls: [
              { name: 'write_file', args: { path: 'x.txt', content: 'no' }, unoffered: true },
              { name: 'execute', args: { command: 'true' }, unoffered: true },
            ],
          },
          { text: 'main done' },
        ],
      },
    ];
    const { run, thread, h } = await runAgent(name, rules, { tools: ['ls'], tool_approval_mode: 'default' });
    expect(run).toMatchObject({ status: 'completed', output: 'main done' });
    expect(await h.storage.approvals.listForRun(run.id)).toEqual([]);
    expect(
      toolResults(thread)
        .map((result) => result.text)
        .sort(),
    ).toEqual([
      'tool execute is not available to this agent',
      'tool write_file is not available to this agent',
    ]);
  });
});

describe.each(['openai', 'anthropic'] as const)(
  'invalid arguments stay for real schema failures (%s)',
  (name) => {
    it('an offered tool called with arguments that fail its schema', async () => {
      const rules: ScriptRule[] = [
        { steps: [{ tool_calls: [{ name: 'read_file', args: { wrong: 1 } }] }, { text: 'main done' }] },
      ];
      const { run, thread } = await runAgent(name, rules, { tools: ['read_file'] });
      expect(run).toMatchObject({ status: 'completed', output: 'main done' });
      const [result] = toolResults(thread);
      expect(result?.isError).toBe(true);
      expect(result?.text).toMatch(/^Invalid arguments for tool read_file: /);
      expect(result?.text).not.toMatch(/unavailable tool/);
    });
  },
);

describe('the availability guard', () => {
  it('refuses a registered tool that was hidden from the model in this run, and lets offered ones through', async () => {
    const ls = { name: 'ls' } as AnyTroupeTool;
    const secret = { name: 'secret' } as AnyTroupeTool;
    const hide: AgentMiddleware = {
      name: 'hide',
      wrapModelCall: (request, next) =>
        next({ ...request, tools: request.tools.filter((tool) => tool.name !== 'secret') }),
    };
    const chain = composeMiddleware([hide, createToolAvailabilityMiddleware()], {
      callModel: () =>
        Promise.resolve({
          text: '',
          toolCalls: [],
          usage: { input_tokens: 0, output_tokens: 0 },
          finishReason: 'stop',
        }),
      callTool: () => Promise.resolve({ output: 'ran', isError: false }),
    });
    const agent = { config: {} } as Agent;
    const call = (tool: AnyTroupeTool) =>
      chain.callTool({ toolName: tool.name, tool, agent } as unknown as ToolCallRequest);
    // Before any model call (a resumed call) only the registry counts.
    expect(await call(secret)).toEqual({ output: 'ran', isError: false });
    await chain.callModel({ tools: [ls, secret] } as unknown as ModelCallRequest);
    expect(await call(ls)).toEqual({ output: 'ran', isError: false });
    const text = 'tool secret is not available to this agent';
    expect(await call(secret)).toEqual({
      output: text,
      isError: true,
      refusal: { code: 'tool_not_available', reason: text, tool: 'secret' },
    });
  });
});
