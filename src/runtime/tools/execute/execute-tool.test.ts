import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_EXECUTE_SETTINGS, type ExecuteSettings } from '../../../execute-settings.js';
import type { AgentConfig } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../../test/helpers/run-helpers.js';
import type { ToolCallRequest } from '../../../core/ports/agent-middleware.js';
import { composeMiddleware } from '../../middleware/compose-middleware.js';
import { createSubagentToolFilterMiddleware } from '../../middleware/subagent-tool-filter-middleware.js';
import { createBwrapSandbox } from './bwrap-sandbox.js';
import { createExecutePolicyResolver, type ExecutePolicy } from './execute-policy.js';
import { createExecuteTool } from './execute-tool.js';
import {
  hostProcessesWith,
  SANDBOX_SKIP_REASON,
  SANDBOX_TOOLS,
  until,
} from '../../../../test/helpers/execute/sandbox-fixture.js';

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SETTINGS: ExecuteSettings = { ...DEFAULT_EXECUTE_SETTINGS, sandboxUid: 100_000 + 4343 };

/** The real tool over the real sandbox; its policy reads the harness's storage once it exists. */
async function setup(
  scenarios: Record<string, string>,
  config: Partial<AgentConfig>,
  child?: Partial<AgentConfig>,
) {
  let policyFor: (run: Run) => Promise<ExecutePolicy> = () => Promise.reject(new Error('not wired'));
  const sandbox = createBwrapSandbox({
    tools: SANDBOX_TOOLS as NonNullable<typeof SANDBOX_TOOLS>,
    sandboxUid: SETTINGS.sandboxUid,
  });
  const execute = createExecuteTool({ sandbox, policyFor: (run) => policyFor(run) });
  // The harness's workdirs belong to the uid this sandbox runs as, as a root server sets them up.
  harness = await createRuntimeHarness({ scenarios, extraTools: [execute], config: { execute: SETTINGS } });
  policyFor = createExecutePolicyResolver({ storage: harness.storage, settings: SETTINGS });
  const user = await harness.createUser('alice');
  if (child)
    await harness.createAgent(
      user,
      'helper',
      { model: 'scripted:helper', ...child },
      { backend: 'subagent', is_subagent: true },
    );
  const agent = await harness.createAgent(user, 'main', {
    model: 'scripted:main',
    tools: ['execute', 'read_file'],
    ...config,
  });
  const conversation = await harness.createConversation(user, agent);
  const project = await harness.storage.projects.get(conversation.project_id);
  return { h: harness, user, conversation, workdir: project?.workdir ?? '', execute };
}

async function waitForStatus(h: RuntimeHarness, runId: string, status: Run['status']): Promise<Run> {
  for (let i = 0; i < 1000; i++) {
    const run = await h.storage.runs.get(runId);
    if (run?.status === status) return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run never reached ${status}`);
}

const BUILD = `
rules:
  - steps:
      - tool_calls:
          - { name: execute, args: { command: "echo built > build.txt && cat build.txt && echo warn >&2" } }
      - text: "result: {{last_tool_result}}"
`;

describe.skipIf(!SANDBOX_TOOLS)(`execute in a run${SANDBOX_SKIP_REASON}`, () => {
  it('waits for approval in default mode, then runs the command in the project workdir', async () => {
    const { h, user, conversation, workdir } = await setup(
      { main: BUILD },
      { tool_approval_mode: 'default' },
    );
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'build it' });
    await waitForStatus(h, run.id, 'input_required');
    const [approval] = await h.runs.listApprovals(user, run.id);
    expect(approval).toMatchObject({
      tool_name: 'execute',
      status: 'pending',
      args: { command: 'echo built > build.txt && cat build.txt && echo warn >&2' },
    });
    expect(existsSync(path.join(workdir, 'build.txt'))).toBe(false);

    await h.runs.decideApproval(user, run.id, approval?.tool_call_id ?? '', { decision: 'approve' });
    const done = await h.runs.await(user, run.id, 30_000);
    expect(done.run.status).toBe('completed');
    expect(readFileSync(path.join(workdir, 'build.txt'), 'utf8')).toBe('built\n');
    const [result] = toolResults(await h.storage.messages.list(conversation.thread_id), 'execute');
    expect(result).toEqual({
      name: 'execute',
      isError: false,
      text: 'exit code: 0\nstdout:\nbuilt\n\nstderr:\nwarn\n',
    });
  });

  it('never runs a rejected command', async () => {
    const { h, user, conversation, workdir } = await setup(
      { main: BUILD },
      { tool_approval_mode: 'default' },
    );
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'build it' });
    await waitForStatus(h, run.id, 'input_required');
    const [approval] = await h.runs.listApprovals(user, run.id);
    await h.runs.decideApproval(user, run.id, approval?.tool_call_id ?? '', { decision: 'reject' });
    expect((await h.runs.await(user, run.id, 30_000)).run.status).toBe('completed');
    expect(existsSync(path.join(workdir, 'build.txt'))).toBe(false);
  });

  const DELEGATING = `
rules:
  - steps:
      - tool_calls: [{ name: task, args: { subagent_slug: helper, description: "child: build" } }]
      - text: "parent: {{last_tool_result}}"
`;
  const CHILD = `
rules:
  - steps:
      - tool_calls: [{ name: execute, args: { command: "echo from-child > child.txt" } }]
      - text: "child done"
`;

  it('is hidden from a subagent unless the run is always_trust, and refused if called anyway', async () => {
    const { h, user, conversation, workdir, execute } = await setup(
      { main: DELEGATING, helper: CHILD },
      { tool_approval_mode: 'default', tools: ['execute'] },
      { tools: ['execute', 'read_file'] },
    );
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    await h.runs.await(user, run.id, 30_000);
    const [child] = await h.storage.runs.listChildren(run.id);
    // The scripted child may only call tools it was shown: execute was not among them.
    expect(child?.status).toBe('failed');
    expect(child?.error?.type).toBe('scenario_invalid');
    expect(child?.error?.message).toContain('execute');
    expect(existsSync(path.join(workdir, 'child.txt'))).toBe(false);

    // Second defence: a call that reaches execution anyway is refused before the sandbox starts.
    const chain = composeMiddleware([createSubagentToolFilterMiddleware('default')], {
      callModel: () => Promise.reject(new Error('unused')),
      callTool: () => Promise.reject(new Error('must not execute')),
    });
    const refused = await chain.callTool({
      toolName: 'execute',
      tool: execute,
      input: { command: 'true' },
    } as unknown as ToolCallRequest);
    const text =
      'tool execute is not available to subagents in this approval mode; hand the result back to the main agent';
    expect(refused).toEqual({
      output: text,
      isError: true,
      refusal: { code: 'tool_not_available', reason: text, tool: 'execute' },
    });
  });

  it('lets a subagent execute when the run is always_trust', async () => {
    const { h, user, conversation, workdir } = await setup(
      { main: DELEGATING, helper: CHILD },
      { tool_approval_mode: 'always_trust', tools: ['execute'] },
      { tools: ['execute'] },
    );
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    expect((await h.runs.await(user, run.id, 30_000)).run.status).toBe('completed');
    const [child] = await h.storage.runs.listChildren(run.id);
    expect(child).toMatchObject({ status: 'completed', output: 'child done' });
    expect(readFileSync(path.join(workdir, 'child.txt'), 'utf8')).toBe('from-child\n');
  });

  it('kills the command when the run is cancelled mid-command', async () => {
    const marker = `${5000 + (process.pid % 1000)}.${Date.now() % 100000}`;
    const slow = `
rules:
  - steps:
      - tool_calls: [{ name: execute, args: { command: "sleep ${marker} >/dev/null 2>&1 & echo $! > started; wait" } }]
      - text: "never"
`;
    const { h, user, conversation, workdir } = await setup(
      { main: slow },
      { tool_approval_mode: 'always_trust' },
    );
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    await until(() => existsSync(path.join(workdir, 'started')), 'the command to start', 30_000);
    expect(hostProcessesWith(marker).length).toBeGreaterThanOrEqual(1);
    await h.runs.cancel(user, run.id);
    expect((await h.runs.await(user, run.id, 30_000)).run.status).toBe('cancelled');
    await until(() => hostProcessesWith(marker).length === 0, 'the sleep to be gone');
  });

  it("narrows the limits by the agent's config and the call's timeout_ms", async () => {
    const timeouts = `
rules:
  - steps:
      - tool_calls:
          - { name: execute, args: { command: "sleep 20" } }
          - { name: execute, args: { command: "sleep 20", timeout_ms: 200 } }
      - text: "{{last_tool_result}}"
`;
    const { h, user, conversation } = await setup(
      { main: timeouts },
      { tool_approval_mode: 'always_trust', execute: { timeout_ms: 400 } },
    );
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    expect((await h.runs.await(user, run.id, 30_000)).run.status).toBe('completed');
    const texts = toolResults(await h.storage.messages.list(conversation.thread_id), 'execute').map(
      (result) => result.text.split('\n')[0],
    );
    expect(texts.sort()).toEqual([
      'timed out after 200 ms: the command and all its processes were killed',
      'timed out after 400 ms: the command and all its processes were killed',
    ]);
  });
});

describe('the execute policy of a run', () => {
  it("gives network only where TROUPE_EXECUTE_NETWORK allows it for the agent's owner, and lowers limits only", async () => {
    harness = await createRuntimeHarness();
    const h = harness;
    const admin = await h.createUser('root-admin', 'admin');
    const member = await h.createUser('member');
    const wants = { execute: { network: true, cpu_seconds: 5, memory_mb: 10_000_000, max_processes: 8 } };
    const adminAgent = await h.createAgent(admin, 'a', wants);
    const memberAgent = await h.createAgent(member, 'm', wants);
    const runOf = (agentId: string) => ({ agent_id: agentId }) as Run;
    const resolve = (network: ExecuteSettings['network']) =>
      createExecutePolicyResolver({ storage: h.storage, settings: { ...SETTINGS, network } });

    expect((await resolve('admin')(runOf(adminAgent.id))).network).toBe(true);
    expect((await resolve('admin')(runOf(memberAgent.id))).network).toBe(false);
    expect((await resolve('any')(runOf(memberAgent.id))).network).toBe(true);
    expect((await resolve('off')(runOf(adminAgent.id))).network).toBe(false);
    const { limits } = await resolve('admin')(runOf(memberAgent.id));
    expect(limits).toMatchObject({
      cpuSeconds: 5,
      memoryBytes: SETTINGS.memoryBytes,
      maxProcesses: 8,
      timeoutMs: SETTINGS.timeoutMs,
    });
  });
});
