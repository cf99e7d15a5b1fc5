import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentConfig } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { defineTool } from '../../core/tools/troupe-tool.js';
import type { ToolCallRequest } from '../../core/ports/agent-middleware.js';
import { composeMiddleware } from './compose-middleware.js';
import { createSubagentToolFilterMiddleware } from './subagent-tool-filter-middleware.js';

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const WRITER = `
rules:
  - steps:
      - tool_calls:
          - { name: write_file, args: { path: out.txt, content: "approved content" } }
          - { name: ls, args: {} }
      - text: "after: {{last_tool_result}}"
`;

async function setup(main: string, config: Partial<AgentConfig>, helper?: string) {
  harness = await createRuntimeHarness({ scenarios: { main, helper: helper ?? main } });
  const user = await harness.createUser('alice');
  await harness.createAgent(
    user,
    'helper',
    { model: 'scripted:helper', tools: ['write_file', 'read_file', 'ls'] },
    { backend: 'subagent', is_subagent: true },
  );
  const agent = await harness.createAgent(user, 'main', { model: 'scripted:main', ...config });
  const conversation = await harness.createConversation(user, agent);
  return { h: harness, user, conversation };
}

async function waitForStatus(h: RuntimeHarness, runId: string, status: Run['status']): Promise<Run> {
  for (let i = 0; i < 500; i++) {
    const run = await h.storage.runs.get(runId);
    if (run?.status === status) return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run never reached ${status}`);
}

describe('approvals in default mode', () => {
  it('parks the run as input_required until approved, then executes the call and finishes', async () => {
    const { h, user, conversation } = await setup(WRITER, { tool_approval_mode: 'default' });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'write it' });
    const parked = await waitForStatus(h, run.id, 'input_required');
    expect(parked.worker_id).toBeNull();
    const [approval] = await h.runs.listApprovals(user, run.id);
    expect(approval).toMatchObject({
      tool_name: 'write_file',
      status: 'pending',
      args: { path: 'out.txt', content: 'approved content' },
    });
    const events = await h.storage.events.list(run.id, 0, 100);
    expect(events.find((event) => event.type === 'approval_required')?.payload).toMatchObject({
      tool_call_id: approval?.tool_call_id,
      name: 'write_file',
    });
    // The non-sensitive call of the same step ran and is not repeated after the approval.
    const project = await h.storage.projects.get(conversation.project_id);
    const file = path.join(project?.workdir ?? '', 'out.txt');
    expect(existsSync(file)).toBe(false);

    const mallory = await h.createUser('mallory');
    await expect(
      h.runs.decideApproval(mallory, run.id, approval?.tool_call_id ?? '', { decision: 'approve' }),
    ).rejects.toMatchObject({ code: 'run_not_found' });
    const decided = await h.runs.decideApproval(user, run.id, approval?.tool_call_id ?? '', {
      decision: 'approve',
    });
    expect(decided.approval.status).toBe('approved');
    await expect(
      h.runs.decideApproval(user, run.id, approval?.tool_call_id ?? '', { decision: 'reject' }),
    ).rejects.toMatchObject({ code: 'approval_decided' });
    await expect(h.runs.decideApproval(user, run.id, 'nope', { decision: 'reject' })).rejects.toMatchObject({
      code: 'approval_not_found',
    });

    const done = await h.runs.await(user, run.id, 10_000);
    expect(done.run.status).toBe('completed');
    expect(readFileSync(file, 'utf8')).toBe('approved content');
    const thread = await h.storage.messages.list(conversation.thread_id);
    expect(toolResults(thread, 'ls')).toHaveLength(1);
    expect(toolResults(thread, 'write_file')).toHaveLength(1);
  });

  it('tells the model about a rejection and never executes the call', async () => {
    const { h, user, conversation } = await setup(WRITER, { tool_approval_mode: 'default' });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'write it' });
    await waitForStatus(h, run.id, 'input_required');
    const [approval] = await h.runs.listApprovals(user, run.id);
    await h.runs.decideApproval(user, run.id, approval?.tool_call_id ?? '', {
      decision: 'reject',
      comment: 'not now',
    });
    const done = await h.runs.await(user, run.id, 10_000);
    expect(done.run.status).toBe('completed');
    const [rejected] = toolResults(await h.storage.messages.list(conversation.thread_id), 'write_file');
    expect(rejected).toMatchObject({ isError: true });
    expect(rejected?.text).toContain('The user rejected this write_file call: not now');
    const project = await h.storage.projects.get(conversation.project_id);
    expect(existsSync(path.join(project?.workdir ?? '', 'out.txt'))).toBe(false);
  });

  it('cancels a parked run at once', async () => {
    const { h, user, conversation } = await setup(WRITER, { tool_approval_mode: 'default' });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'write it' });
    await waitForStatus(h, run.id, 'input_required');
    expect((await h.runs.cancel(user, run.id)).status).toBe('cancelled');
  });

  it('runs sensitive tools without asking in always_trust mode', async () => {
    const { h, user, conversation } = await setup(WRITER, { tool_approval_mode: 'always_trust' });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'write it' });
    expect((await h.runs.await(user, run.id, 10_000)).run.status).toBe('completed');
    expect(await h.runs.listApprovals(user, run.id)).toEqual([]);
  });
});

describe('tool filtering for subagents', () => {
  const DELEGATING = `
rules:
  - when: { contains: child }
    steps:
      - tool_calls: [{ name: write_file, args: { path: child.txt, content: "from the child" } }]
      - text: "child wrote"
  - steps:
      - tool_calls: [{ name: task, args: { subagent_slug: helper, description: "child: write a file" } }]
      - text: "parent: {{last_tool_result}}"
`;

  it('hides sensitive tools from a subagent in default mode (the scripted call is not even offered)', async () => {
    const { h, user, conversation } = await setup(DELEGATING, { tool_approval_mode: 'default' });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    await h.runs.await(user, run.id, 10_000);
    const [child] = await h.storage.runs.listChildren(run.id);
    expect(child?.status).toBe('failed');
    expect(child?.error?.type).toBe('scenario_invalid');
    expect(child?.error?.message).toContain('write_file');
    expect(child?.tool_approval_mode).toBe('default');
  });

  it('lets a subagent write when the parent runs in always_trust', async () => {
    const { h, user, conversation } = await setup(DELEGATING, { tool_approval_mode: 'always_trust' });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    await h.runs.await(user, run.id, 10_000);
    const [child] = await h.storage.runs.listChildren(run.id);
    expect(child).toMatchObject({
      status: 'completed',
      output: 'child wrote',
      tool_approval_mode: 'always_trust',
    });
  });

  it('refuses a call to a hidden tool at execution, even if the model was never shown it', async () => {
    let executed = false;
    const writeFile = defineTool({
      effect: 'idempotent',
      name: 'write_file',
      description: 'write',
      inputSchema: z.object({}),
      sensitive: true,
      execute: () => {
        executed = true;
        return Promise.resolve('written');
      },
    });
    const guard = createSubagentToolFilterMiddleware('default');
    const chain = composeMiddleware([guard], {
      callModel: () => Promise.reject(new Error('unused')),
      callTool: async (request) => ({
        output: await (request.tool?.execute({}, request.context) ?? 'none'),
        isError: false,
      }),
    });
    for (const name of ['write_file', 'task', 'delegate', 'subagent_start', 'ask_user_question']) {
      const result = await chain.callTool({
        toolName: name,
        tool: writeFile,
        input: {},
      } as unknown as ToolCallRequest);
      const text = `tool ${name} is not available to subagents in this approval mode; hand the result back to the main agent`;
      expect(result).toEqual({
        output: text,
        isError: true,
        refusal: { code: 'tool_not_available', reason: text, tool: name },
      });
    }
    expect(executed).toBe(false);
    const trusting = composeMiddleware([createSubagentToolFilterMiddleware('always_trust')], {
      callModel: () => Promise.reject(new Error('unused')),
      callTool: () => Promise.resolve({ output: 'ran', isError: false }),
    });
    expect(
      await trusting.callTool({
        toolName: 'write_file',
        tool: writeFile,
        input: {},
      } as unknown as ToolCallRequest),
    ).toEqual({ output: 'ran', isError: false });
    expect(
      (
        await trusting.callTool({
          toolName: 'task',
          tool: writeFile,
          input: {},
        } as unknown as ToolCallRequest)
      ).isError,
    ).toBe(true);
  });

  it('hides and refuses any tool flagged sensitive, listed or not (the flag is the one source of truth)', async () => {
    const deploy = defineTool({
      effect: 'idempotent',
      name: 'deploy_site',
      description: 'deploys',
      inputSchema: z.object({}),
      sensitive: true,
      execute: () => Promise.resolve('deployed'),
    });
    const read = defineTool({
      effect: 'read_only',
      name: 'read_notes',
      description: 'reads',
      inputSchema: z.object({}),
      execute: () => Promise.resolve('notes'),
    });
    const shown: string[][] = [];
    const chain = composeMiddleware([createSubagentToolFilterMiddleware('default')], {
      callModel: (request) => {
        shown.push(request.tools.map((tool) => tool.name));
        return Promise.resolve({
          text: '',
          toolCalls: [],
          usage: { input_tokens: 0, output_tokens: 0 },
          finishReason: 'stop',
        });
      },
      callTool: () => Promise.resolve({ output: 'ran', isError: false }),
    });
    await chain.callModel({ tools: [deploy, read] } as never);
    expect(shown).toEqual([['read_notes']]);
    expect(
      (
        await chain.callTool({
          toolName: 'deploy_site',
          tool: deploy,
          input: {},
        } as unknown as ToolCallRequest)
      ).isError,
    ).toBe(true);
    expect(
      await chain.callTool({ toolName: 'read_notes', tool: read, input: {} } as unknown as ToolCallRequest),
    ).toEqual({ output: 'ran', isError: false });
  });
});
