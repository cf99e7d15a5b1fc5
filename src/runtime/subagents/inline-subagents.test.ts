import { afterEach, describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import type { User } from '../../core/records/user.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import type { MiddlewareFactory } from '../middleware/middleware-factory.js';
import { createWorkdirTools } from '../tools/workdir/create-workdir-tools.js';
import { resolveRunAgent } from '../agents/resolve-run-agent.js';

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const taskCall = (slug: string) => `
rules:
  - steps:
      - tool_calls:
          - name: task
            args: { subagent_slug: ${slug}, description: "Look into: {{input}}" }
      - text: "Main got: {{last_tool_result}}"
`;
const SCANNER = `
rules:
  - steps:
      - tool_calls: [{ name: ls, args: {} }]
      - text: "scanner listed the workdir"
`;
const REPLY = (text: string) => `rules:\n  - steps:\n      - text: "${text}"\n`;

/** What the model was shown, per run type: the last model call of each kind wins. */
interface Seen {
  main: { system: string; tools: string[] };
  child: { system: string; tools: string[] };
}

function probe(seen: Seen): MiddlewareFactory {
  return () =>
    Promise.resolve([
      {
        name: 'probe',
        wrapModelCall(request, next) {
          const slot = request.run.run_type === 'subagent' ? seen.child : seen.main;
          slot.system = request.system;
          slot.tools = request.tools.map((tool) => tool.name).sort();
          return next(request);
        },
      },
    ]);
}

interface Setup {
  main: string;
  mainConfig: AgentConfig;
  scenarios?: Record<string, string>;
  registered?: { slug: string; description: string; scenario: string }[];
}

async function setup(options: Setup) {
  const seen: Seen = { main: { system: '', tools: [] }, child: { system: '', tools: [] } };
  const registered = options.registered ?? [];
  harness = await createRuntimeHarness({
    scenarios: {
      main: options.main,
      scanner: SCANNER,
      ...Object.fromEntries(registered.map((entry) => [entry.slug, entry.scenario])),
      ...options.scenarios,
    },
    middleware: probe(seen),
  });
  const user = await harness.createUser('alice');
  for (const entry of registered) {
    await harness.createAgent(
      user,
      entry.slug,
      { model: `scripted:${entry.slug}` },
      {
        backend: 'subagent',
        is_subagent: true,
        description: entry.description,
      },
    );
  }
  const main = await harness.createAgent(user, 'main', { model: 'scripted:main', ...options.mainConfig });
  const conversation = await harness.createConversation(user, main);
  return { h: harness, user, main, conversation, seen };
}

async function runTurn(h: RuntimeHarness, user: User, conversationId: string, content = 'the repo') {
  const { run } = await h.runs.postMessage(user, conversationId, { content });
  const done = await h.runs.await(user, run.id, 20_000);
  expect(done.run.status).toBe('completed');
  const [child] = await h.storage.runs.listChildren(run.id);
  return { run: done.run, child };
}

const SCANNER_SPEC = {
  name: 'scanner',
  description: 'Lists files',
  system_prompt: 'You only list files.',
  tools: ['ls', 'task', 'delegate', 'nope'],
  model: 'scripted:scanner',
};

describe('inline subagent specs at run time', () => {
  it('runs an inline spec through task as a child of the parent agent, with its resolved tools only', async () => {
    const { h, user, main, conversation, seen } = await setup({
      main: taskCall('scanner'),
      mainConfig: { tools: ['read_file', 'write_file', 'ls', 'grep'], subagent_specs: [SCANNER_SPEC] },
    });
    const { run, child } = await runTurn(h, user, conversation.id);
    expect(child).toMatchObject({
      run_type: 'subagent',
      agent_id: main.id,
      status: 'completed',
      model_spec: 'scripted:scanner',
      depth: 1,
      created_by_run_id: run.id,
      input: { message: 'Look into: the repo', subagent_slug: 'scanner', inline_subagent: 'scanner' },
    });
    if (!child) return;
    expect(seen.child).toEqual({ system: 'You only list files.', tools: ['ls'] });
    const childConversation = await h.storage.conversations.get(child.conversation_id);
    expect(childConversation).toMatchObject({
      agent_id: main.id,
      title: 'SubAgent: scanner',
      status: 'subagent',
    });
    const relation = await h.storage.subagentThreads.getByChildThread(child.thread_id);
    expect(relation?.subagent_slug).toBe('scanner');
    const [result] = toolResults(await h.storage.messages.list(conversation.thread_id), 'task');
    expect(result?.text).toBe(
      `> Subagent thread ID: ${child.thread_id}\n\n---\n\nscanner listed the workdir`,
    );
    const metadata = (await h.storage.events.list(child.id, 0, 10)).find(
      (event) => event.type === 'metadata',
    );
    expect(metadata?.payload).toMatchObject({
      agent_id: main.id,
      agent_slug: 'scanner',
      subagent_slug: 'scanner',
    });
    const updates = (await h.storage.events.list(run.id, 0, 200)).filter(
      (event) => event.type === 'subagent_update',
    );
    expect(updates.length).toBeGreaterThan(0);
    expect(
      updates.every((event) => event.payload.slug === 'scanner' && event.payload.name === 'scanner'),
    ).toBe(true);
  });

  it("inherits the parent's model; `*` gives the parent's tools minus reserved and, outside always_trust, sensitive ones", async () => {
    const { h, user, conversation, seen } = await setup({
      main: taskCall('inheritor').replace(
        'rules:\n',
        'rules:\n  - when: { contains: "Look into" }\n    steps:\n      - text: "played by the parent model"\n',
      ),
      mainConfig: {
        tools: ['read_file', 'write_file', 'ls'],
        subagent_specs: [
          { name: 'inheritor', description: 'Inherits', system_prompt: 'Inherit.', tools: ['*'] },
        ],
      },
    });
    const { child } = await runTurn(h, user, conversation.id);
    expect(child?.model_spec).toBe('scripted:main');
    expect(child?.output).toBe('played by the parent model');
    expect(seen.child.tools).toEqual(['ls', 'read_file']);
  });

  it('a spec without `tools` gets none, so it does not exist at run time (never all the parent tools)', async () => {
    const { h, user, conversation, seen } = await setup({
      main: taskCall('toolless'),
      mainConfig: {
        tools: ['read_file', 'ls'],
        subagent_specs: [
          { name: 'toolless', description: 'Forgot its tools', system_prompt: 'Hi.' },
          SCANNER_SPEC,
        ],
      },
    });
    const { run, child } = await runTurn(h, user, conversation.id);
    expect(child).toBeUndefined();
    expect(seen.main.system).toContain('- scanner: Lists files');
    expect(seen.main.system).not.toContain('toolless');
    const [result] = toolResults(await h.storage.messages.list(run.thread_id), 'task');
    expect(result?.isError).toBe(true);
    expect(result?.text).toContain('Cannot call subagent toolless');
  });

  it('lists the namespace in order: general-purpose, inline specs, registered subagents', async () => {
    const { h, user, conversation, seen } = await setup({
      main: REPLY('hi'),
      mainConfig: { tools: ['ls'], subagent_specs: [SCANNER_SPEC] },
      registered: [{ slug: 'writer', description: 'Writes', scenario: REPLY('written') }],
    });
    await runTurn(h, user, conversation.id);
    const listed = seen.main.system
      .split('Available subagent slugs:\n\n')[1]
      ?.split('\n')
      .map((line) => line.split(':')[0]);
    expect(listed).toEqual(['- general-purpose', '- scanner', '- writer']);
    expect(seen.main.tools).toEqual(expect.arrayContaining(['task', 'subagent_start', 'ls']));
  });

  it('lets an inline spec shadow a registered subagent of the same slug', async () => {
    const { h, user, main, conversation, seen } = await setup({
      main: taskCall('helper'),
      mainConfig: {
        tools: ['ls'],
        subagent_specs: [
          { ...SCANNER_SPEC, name: 'helper', description: 'Inline helper', model: 'scripted:scanner' },
        ],
      },
      registered: [
        { slug: 'helper', description: 'Registered helper', scenario: REPLY('registered helper answered') },
      ],
    });
    const { child } = await runTurn(h, user, conversation.id);
    expect(child).toMatchObject({
      agent_id: main.id,
      input: { inline_subagent: 'helper' },
      output: 'scanner listed the workdir',
    });
    expect(seen.main.system).toContain('- helper: Inline helper');
    expect(seen.main.system).not.toContain('Registered helper');
  });

  it('runs the built-in general-purpose subagent with the parent model and tools', async () => {
    const { h, user, main, conversation, seen } = await setup({
      main: taskCall('general-purpose').replace(
        'rules:\n',
        'rules:\n  - when: { contains: "Look into" }\n    steps:\n      - text: "general answer"\n',
      ),
      mainConfig: { tools: ['read_file', 'write_file', 'ls'], subagent_specs: [SCANNER_SPEC] },
    });
    const { child } = await runTurn(h, user, conversation.id);
    expect(child).toMatchObject({
      agent_id: main.id,
      model_spec: 'scripted:main',
      input: { inline_subagent: 'general-purpose' },
      output: 'general answer',
    });
    expect(seen.child.tools).toEqual(['ls', 'read_file']);
    expect(seen.child.system).toContain('general-purpose subagent');
  });

  it('gives general-purpose sensitive tools only in always_trust', async () => {
    const { h, user, conversation, seen } = await setup({
      main: taskCall('general-purpose').replace(
        'rules:\n',
        'rules:\n  - when: { contains: "Look into" }\n    steps:\n      - text: "ok"\n',
      ),
      mainConfig: {
        tools: ['read_file', 'write_file', 'ls'],
        tool_approval_mode: 'always_trust',
        subagents: ['general-purpose'],
      },
    });
    await runTurn(h, user, conversation.id);
    expect(seen.child.tools).toEqual(['ls', 'read_file', 'write_file']);
  });

  it('mounts nothing for an agent without subagents, and general-purpose can be turned off', async () => {
    const { h, user, conversation, seen } = await setup({
      main: REPLY('hi'),
      mainConfig: { tools: ['ls'], subagent_specs: [SCANNER_SPEC], disable_general_purpose: true },
    });
    await runTurn(h, user, conversation.id);
    expect(seen.main.system).toContain('- scanner: Lists files');
    expect(seen.main.system).not.toContain('general-purpose');

    const bare = await h.createAgent(user, 'bare', { model: 'scripted:main', tools: ['ls'] });
    const bareConversation = await h.createConversation(user, bare);
    await runTurn(h, user, bareConversation.id);
    expect(seen.main.tools).toEqual(['ls']);
    expect(seen.main.system).not.toContain('subagent');
  });

  it('drops bad specs silently at run time: the run goes on with the good ones', async () => {
    const { h, user, conversation, seen } = await setup({
      main: REPLY('hi'),
      mainConfig: {
        tools: ['ls'],
        subagent_specs: [
          'not an object',
          { name: 'task', description: 'x', system_prompt: 'x' },
          { name: 'no tools', description: 'x', system_prompt: 'x', tools: [] },
          SCANNER_SPEC,
          { ...SCANNER_SPEC, description: 'duplicate' },
        ],
      },
    });
    await runTurn(h, user, conversation.id);
    const listed = seen.main.system.split('Available subagent slugs:\n\n')[1]?.split('\n');
    expect(listed).toEqual([expect.stringMatching(/^- general-purpose: /), '- scanner: Lists files']);
  });

  it('fails a child whose spec is gone by the time it executes, with a clear error', async () => {
    const { h, main } = await setup({
      main: REPLY('hi'),
      mainConfig: { tools: ['ls'], subagent_specs: [SCANNER_SPEC] },
    });
    const stored = await h.storage.agents.get(main.id);
    if (!stored) throw new Error('no agent');
    const run = {
      run_type: 'subagent',
      model_spec: 'scripted:main',
      tool_approval_mode: 'default',
      input: { message: 'x', inline_subagent: 'ghost' },
    } as unknown as Run;
    await expect(resolveRunAgent(run, stored, { catalogue: createWorkdirTools() })).rejects.toMatchObject({
      code: 'agent_not_found',
      message: 'Subagent "ghost" is no longer defined by agent main',
    });
    const resolved = await resolveRunAgent(
      { ...run, input: { message: 'x', inline_subagent: 'scanner' } },
      stored,
      { catalogue: createWorkdirTools() },
    );
    expect(resolved.agent).toMatchObject({
      id: main.id,
      slug: 'scanner',
      is_subagent: true,
      backend: 'subagent',
    });
    expect(resolved.tools.map((tool) => tool.name)).toEqual(['ls']);
  });
});
