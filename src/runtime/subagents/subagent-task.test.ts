import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { subagentChildThreadId } from '../../core/ids.js';
import type { AgentConfig } from '../../core/records/agent.js';
import type { RuntimeHarnessOptions } from '../../../test/helpers/create-runtime-harness.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { HELPER_REPORTS as HELPER, TASK_MAIN } from '../../../test/helpers/runtime/use-subagent-world.js';
import { keptResultPath } from '../tool-results/keep-result-in-workdir.js';
import { withoutVerification } from '../../../test/helpers/without-verification.js';
import { LIFECYCLE_TOOLS } from './lifecycle-tool-gate.js';

const LIFECYCLE = [...LIFECYCLE_TOOLS];

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface Setup {
  main: string;
  helper?: string;
  mainConfig?: Partial<AgentConfig>;
  helperConfig?: Partial<AgentConfig>;
  harness?: RuntimeHarnessOptions;
}

async function setup(options: Setup) {
  harness = await createRuntimeHarness({
    scenarios: { main: options.main, helper: options.helper ?? HELPER },
    ...options.harness,
  });
  const user = await harness.createUser('alice');
  const helper = await harness.createAgent(
    user,
    'helper',
    { model: 'scripted:helper', tools: ['read_file', 'write_file', 'ls'], ...options.helperConfig },
    {
      backend: 'subagent',
      is_subagent: true,
      description: 'Helps with investigations',
    },
  );
  const main = await harness.createAgent(user, 'main', {
    model: 'scripted:main',
    tool_approval_mode: 'always_trust',
    ...options.mainConfig,
  });
  const conversation = await harness.createConversation(user, main);
  return { h: harness, user, helper, main, conversation };
}

describe('task: a blocking subagent call', () => {
  it('runs the subagent in its own child thread and returns its final text with the thread id', async () => {
    const { h, user, helper, conversation } = await setup({ main: TASK_MAIN });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'the logs' });
    const done = await h.runs.await(user, run.id, 15_000);
    expect(done.run.status).toBe('completed');

    const [child] = await h.storage.runs.listChildren(run.id);
    expect(child).toBeDefined();
    if (!child) return;
    const thread = await h.storage.messages.list(conversation.thread_id);
    const toolCallId = child.input.parent_tool_call_id ?? '';
    expect(child.thread_id).toBe(subagentChildThreadId(conversation.thread_id, 'helper', toolCallId));
    expect(child).toMatchObject({
      run_type: 'subagent',
      source: 'subagent',
      channel: 'internal',
      status: 'completed',
      created_by_run_id: run.id,
      root_run_id: run.id,
      depth: 1,
      runtime_scope_id: run.runtime_scope_id,
      tool_approval_mode: 'always_trust',
      model_spec: 'scripted:helper',
      agent_id: helper.id,
    });
    const [taskResult] = toolResults(thread, 'task');
    expect(withoutVerification(taskResult?.text)).toBe(
      `> Subagent thread ID: ${child.thread_id}\n\n---\n\nHelper report on <Investigate: the logs>`,
    );
    expect(done.run.output).toContain('Helper report on <Investigate: the logs>');

    const childConversation = await h.storage.conversations.get(child.conversation_id);
    expect(childConversation).toMatchObject({
      status: 'subagent',
      title: 'SubAgent: helper',
      project_id: conversation.project_id,
      thread_id: child.thread_id,
    });
    const relation = await h.storage.subagentThreads.getByChildThread(child.thread_id);
    expect(relation).toMatchObject({
      parent_conversation_id: conversation.id,
      subagent_slug: 'helper',
      created_by_run_id: run.id,
    });
    // The child's thread holds only the task description, not the parent's history.
    const childThread = await h.storage.messages.list(child.thread_id);
    expect(childThread[0]?.message).toEqual({ role: 'user', content: 'Investigate: the logs' });
  });

  it('completes with a single worker slot: a parent waiting in `task` gives its slot to the child', async () => {
    const { h, user, conversation } = await setup({ main: TASK_MAIN, harness: { concurrency: 1 } });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'one slot' });
    const done = await h.runs.await(user, run.id, 15_000);
    expect(done.run.status).toBe('completed');
    expect(done.run.output).toContain('Helper report on <Investigate: one slot>');
  });

  it("uses the server default model, never the parent's, when the registered subagent configures none", async () => {
    const { h, user, conversation } = await setup({
      main: TASK_MAIN,
      helperConfig: { model: undefined },
      harness: {
        scenarios: {
          // Were the parent's model to play the child, this rule would answer the child's message.
          main: TASK_MAIN.replace(
            'rules:\n',
            'rules:\n  - when: { contains: Investigate }\n    steps:\n      - text: "played by the parent model"\n',
          ),
          // The harness's server default model.
          demo: 'rules:\n  - steps:\n      - text: "played by the server default"\n',
        },
      },
    });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'the logs' });
    await h.runs.await(user, run.id, 15_000);
    const [child] = await h.storage.runs.listChildren(run.id);
    expect(child?.model_spec).toBe('scripted:demo');
    expect(child?.output).toBe('played by the server default');
  });

  it('answers an unknown slug with the list of available subagents, as an error result', async () => {
    const main = TASK_MAIN.replace('subagent_slug: helper', 'subagent_slug: nobody');
    const { h, user, conversation } = await setup({ main });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    await h.runs.await(user, run.id, 15_000);
    const [result] = toolResults(await h.storage.messages.list(conversation.thread_id), 'task');
    // The built-in general-purpose subagent comes first in the namespace (docs/inline-subagents.md).
    expect(result).toMatchObject({
      isError: true,
      text: 'Cannot call subagent nobody; the available subagents are: `general-purpose`, `helper`',
    });
    expect(await h.storage.runs.listChildren(run.id)).toEqual([]);
  });

  it('surfaces a failed child with its status and error, never as success', async () => {
    const broken = `rules:\n  - steps:\n      - tool_calls: [{ name: read_file, args: { nope: 1 } }]\n`;
    const { h, user, conversation } = await setup({ main: TASK_MAIN, helper: broken });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    await h.runs.await(user, run.id, 15_000);
    const [result] = toolResults(await h.storage.messages.list(conversation.thread_id), 'task');
    expect(result?.isError).toBe(true);
    expect(result?.text).toMatch(
      /^> Subagent thread ID: subagent_[0-9a-f]+\n\n---\n\nThe subagent run ended as failed: /,
    );
  });

  it('returns the still-running text with the run id when the wait times out', async () => {
    const slow = `rules:\n  - steps:\n      - delay_ms: 3000\n        text: late\n`;
    const { h, user, conversation } = await setup({
      main: TASK_MAIN,
      helper: slow,
      harness: { limits: { waitTimeoutMs: 100 } },
    });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    await h.runs.await(user, run.id, 15_000);
    const [result] = toolResults(await h.storage.messages.list(conversation.thread_id), 'task');
    const [child] = await h.storage.runs.listChildren(run.id);
    expect(result?.text).toContain('The subagent is still running (status: ');
    expect(result?.text).toContain(`run_id: ${child?.id}`);
    expect(result?.text).toContain('do not treat this as a finished task');
  });

  it('spills a result over the cap to a workdir file and returns its path', async () => {
    const long = `rules:\n  - steps:\n      - text: "${'x'.repeat(500)}"\n`;
    const { h, user, conversation } = await setup({
      main: TASK_MAIN,
      helper: long,
      harness: { limits: { childResultCapBytes: 100 } },
    });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    await h.runs.await(user, run.id, 15_000);
    const [child] = await h.storage.runs.listChildren(run.id);
    const [result] = toolResults(await h.storage.messages.list(conversation.thread_id), 'task');
    const relative = keptResultPath(child?.id ?? '');
    expect(result?.text).toContain(`Result kept in the workdir: ${relative} (`);
    expect(result?.text).toContain('500 bytes');
    const project = await h.storage.projects.get(conversation.project_id);
    const spilled = path.join(project?.workdir ?? '', relative);
    expect(existsSync(spilled)).toBe(true);
    expect(readFileSync(spilled, 'utf8')).toBe('x'.repeat(500));
  });
});

describe('allowed subagents', () => {
  async function seenByModel(
    mainConfig: Partial<AgentConfig>,
    main = `rules:\n  - steps:\n      - text: hi\n`,
  ) {
    const seen: { system: string; tools: string[]; calls: string[][] } = { system: '', tools: [], calls: [] };
    const { h, user, conversation } = await setup({
      main,
      mainConfig,
      harness: {
        middleware: () =>
          Promise.resolve([
            {
              name: 'probe',
              wrapModelCall(request, next) {
                if (request.run.run_type === 'chat') {
                  seen.system = request.system;
                  seen.tools = request.tools.map((tool) => tool.name);
                  seen.calls.push(seen.tools);
                }
                return next(request);
              },
            },
          ]),
      },
    });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    await h.runs.await(user, run.id, 15_000);
    return seen;
  }

  it('mounts the tools and the prompt section when subagents are allowed', async () => {
    const seen = await seenByModel({});
    expect(seen.tools).toEqual(expect.arrayContaining(['task', 'subagent_start']));
    // The lifecycle tools wait for a background child (docs/subagents.md#when-the-tools-are-shown).
    for (const name of LIFECYCLE) expect(seen.tools).not.toContain(name);
    expect(seen.system).toContain('## `task` (subagent tools)');
    expect(seen.system).toContain('Available subagent slugs:\n\n- general-purpose: ');
    expect(seen.system).toContain('\n- helper: Helps with investigations');
  });

  it('shows the lifecycle tools from the step after a background start on, the list otherwise unchanged', async () => {
    const seen = await seenByModel(
      {},
      [
        'rules:',
        '  - steps:',
        '      - tool_calls: [{ name: ls, args: {} }]',
        '      - tool_calls: [{ name: subagent_start, args: { subagent_slug: helper, description: "later" } }]',
        '      - tool_calls: [{ name: subagent_await, args: { run_id: "{{run_id}}" } }]',
        '      - text: done',
        '',
      ].join('\n'),
    );
    const [first, second, third, fourth] = seen.calls;
    expect(second).toEqual(first);
    for (const name of LIFECYCLE) expect(first).not.toContain(name);
    expect(third).toEqual(expect.arrayContaining([...(first ?? []), ...LIFECYCLE]));
    expect(fourth).toEqual(third);
  });

  it('refuses a hidden lifecycle tool at execution like any tool the model was not shown', async () => {
    const { h, user, conversation } = await setup({
      main: `rules:\n  - steps:\n      - tool_calls: [{ name: subagent_status, args: { run_id: r1 }, unoffered: true }]\n      - text: done\n`,
    });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    expect((await h.runs.await(user, run.id, 15_000)).run.status).toBe('completed');
    const [result] = toolResults(await h.storage.messages.list(conversation.thread_id), 'subagent_status');
    expect(result?.text).toContain('tool subagent_status is not available to this agent');
  });

  it('fails closed: an explicit list with only invisible entries mounts nothing', async () => {
    const seen = await seenByModel({ subagents: ['ghost'] });
    expect(seen.tools).not.toContain('task');
    expect(seen.system).not.toContain('subagent');
  });

  it('hides subagents the user cannot see', async () => {
    harness = await createRuntimeHarness({
      scenarios: {
        main: `rules:\n  - steps:\n      - tool_calls: [{ name: ls, args: {} }]\n      - text: done\n`,
      },
    });
    const owner = await harness.createUser('owner');
    const other = await harness.createUser('other');
    await harness.createAgent(
      owner,
      'secret',
      { model: 'scripted:main' },
      { backend: 'subagent', is_subagent: true },
    );
    const main = await harness.createAgent(other, 'main', { model: 'scripted:main' });
    const conversation = await harness.createConversation(other, main);
    const { run } = await harness.runs.postMessage(other, conversation.id, { content: 'x' });
    await harness.runs.await(other, run.id, 15_000);
    const events = await harness.storage.events.list(run.id, 0, 100);
    expect(events.some((event) => event.type === 'tool_call' && event.payload.name === 'task')).toBe(false);
  });
});
