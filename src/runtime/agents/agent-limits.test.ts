import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../run-limits.js';
import { DELEGATION_TEXTS } from '../../core/delegation/delegation-texts.js';
import type { AgentConfig } from '../../core/records/agent.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { agentConfigSchema } from './agent-config-schema.js';
import { assertLimitsWithinServer, effectiveLimits, limitsAboveServer } from './agent-limits.js';
import { keptResultPath } from '../tool-results/keep-result-in-workdir.js';

describe('effectiveLimits', () => {
  it('narrows every server limit by the agent value, never raises one', () => {
    const server = { ...DEFAULT_LIMITS, maxActiveChildrenPerRun: 5, waitTimeoutMs: 60_000 };
    const config: AgentConfig = {
      limits: {
        max_children_per_run: 2,
        wait_timeout_ms: 600_000,
        subagent_max_depth: 0,
        delegation_max_depth: 1,
        max_children_per_user: 3,
        child_result_cap_bytes: 100,
        max_steps: 4,
        inactivity_timeout_ms: 5_000,
        tool_result_max_tokens: 500,
      },
    };
    expect(effectiveLimits(server, config)).toEqual({
      maxSteps: 4,
      subagentMaxDepth: 0,
      delegationMaxDepth: 1,
      maxActiveChildrenPerRun: 2,
      maxActiveChildrenPerUser: 3,
      childResultCapBytes: 100,
      // 600 s asked, 60 s allowed by the server: an agent saved before the server lowered it is clamped.
      waitTimeoutMs: 60_000,
      inactivityTimeoutMs: 5_000,
      toolResultMaxTokens: 500,
      childBudgetShare: server.childBudgetShare,
    });
    expect(effectiveLimits(server, {})).toEqual(server);
  });

  it('treats config.max_steps as the older spelling of limits.max_steps: the smaller wins', () => {
    expect(effectiveLimits(DEFAULT_LIMITS, { max_steps: 3 }).maxSteps).toBe(3);
    expect(effectiveLimits(DEFAULT_LIMITS, { max_steps: 3, limits: { max_steps: 7 } }).maxSteps).toBe(3);
    expect(effectiveLimits(DEFAULT_LIMITS, { max_steps: 500 }).maxSteps).toBe(DEFAULT_LIMITS.maxSteps);
  });
});

describe('limits above the server', () => {
  it('are named with the server value and its setting, and refused as validation_failed', () => {
    const config: AgentConfig = { max_steps: 30, limits: { max_children_per_run: 6, wait_timeout_ms: 1000 } };
    expect(limitsAboveServer(DEFAULT_LIMITS, config)).toEqual([
      {
        path: 'config.max_steps',
        message:
          "must be at most 25, the server's TROUPE_MAX_STEPS; an agent may narrow a limit, never raise it",
        code: 'too_big',
      },
      {
        path: 'config.limits.max_children_per_run',
        message:
          "must be at most 5, the server's TROUPE_MAX_CHILDREN_PER_RUN; an agent may narrow a limit, never raise it",
        code: 'too_big',
      },
    ]);
    expect(() => assertLimitsWithinServer(DEFAULT_LIMITS, config)).toThrow(
      expect.objectContaining({ code: 'validation_failed' }),
    );
    expect(() =>
      assertLimitsWithinServer(DEFAULT_LIMITS, { limits: { max_children_per_run: 5 } }),
    ).not.toThrow();
  });

  it('the config schema takes known limits only, as non-negative integers', () => {
    expect(
      agentConfigSchema.safeParse({ limits: { max_children_per_run: 1, subagent_max_depth: 0 } }).success,
    ).toBe(true);
    expect(agentConfigSchema.safeParse({ limits: { max_children: 1 } }).success).toBe(false);
    expect(agentConfigSchema.safeParse({ limits: { max_children_per_run: -1 } }).success).toBe(false);
    expect(agentConfigSchema.safeParse({ limits: { max_steps: 0 } }).success).toBe(false);
    expect(agentConfigSchema.safeParse({ limits: { wait_timeout_ms: 1.5 } }).success).toBe(false);
  });
});

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SLOW = `rules:\n  - steps:\n      - delay_ms: 20000\n        text: slow\n`;
const LONG = `rules:\n  - steps:\n      - text: "${'x'.repeat(200)}"\n`;
const MAIN = `
rules:
  - when: { contains: fan-out }
    steps:
      - tool_calls:
          - { name: subagent_start, args: { subagent_slug: slow, description: one } }
          - { name: subagent_start, args: { subagent_slug: slow, description: two } }
      - text: started
  - when: { contains: wait }
    steps:
      - tool_calls: [{ name: task, args: { subagent_slug: slow, description: wait for me } }]
      - text: "waited: {{last_tool_result}}"
  - when: { contains: long }
    steps:
      - tool_calls: [{ name: task, args: { subagent_slug: long, description: a long answer } }]
      - text: "got it"
  - when: { contains: delegate }
    steps:
      - tool_calls: [{ name: delegate, args: { expert: expert, task: "{{input}}" } }]
      - text: "delegated: {{last_tool_result}}"
  - when: { contains: loop }
    steps:
${'      - tool_calls: [{ name: ls, args: {} }]\n'.repeat(6)}      - text: never
`;

/** A main agent with the given limits, two registered subagents and a published expert, on server defaults. */
async function setup(limits: AgentConfig['limits']) {
  const h = await createRuntimeHarness({ scenarios: { main: MAIN, slow: SLOW, long: LONG } });
  harness = h;
  const user = await h.createUser('alice');
  const subagent = { backend: 'subagent', is_subagent: true } as const;
  await h.createAgent(user, 'slow', { model: 'scripted:slow' }, { ...subagent, description: 'slow helper' });
  await h.createAgent(user, 'long', { model: 'scripted:long' }, { ...subagent, description: 'long helper' });
  await h.createAgent(user, 'expert', { model: 'scripted:long' }, { status: 'published' });
  await h.storage.users.setDelegationPolicy(user.id, 'all', []);
  const main = await h.createAgent(user, 'main', { model: 'scripted:main', tools: ['ls'], limits });
  const conversation = await h.createConversation(user, main);
  const ask = async (content: string) => {
    const { run } = await h.runs.postMessage(user, conversation.id, { content });
    const done = (await h.runs.await(user, run.id, 20_000)).run;
    return { run: done, thread: await h.storage.messages.list(done.thread_id) };
  };
  return { h, ask };
}

describe('per-agent limits at run time (server defaults stay higher)', () => {
  it('max_children_per_run: a second parallel start is refused at the agent limit', async () => {
    const { ask } = await setup({ max_children_per_run: 1 });
    const { thread } = await ask('fan-out');
    const results = toolResults(thread, 'subagent_start');
    expect(results).toHaveLength(2);
    expect(results.filter((result) => !result.isError)).toHaveLength(1);
    expect(results.filter((result) => result.isError).map((result) => result.text)).toEqual([
      SUBAGENT_TEXTS.tooManyChildren(1),
    ]);
  });

  it('max_children_per_user: a second parallel start is refused at the agent limit for the user', async () => {
    const { ask } = await setup({ max_children_per_user: 1 });
    const { thread } = await ask('fan-out');
    const results = toolResults(thread, 'subagent_start');
    expect(results.filter((result) => result.isError).map((result) => result.text)).toEqual([
      SUBAGENT_TEXTS.tooManyForUser(1),
    ]);
  });

  it('subagent_max_depth 0: the agent may not start subagents at all', async () => {
    const { ask } = await setup({ subagent_max_depth: 0 });
    const { thread } = await ask('fan-out');
    expect(toolResults(thread, 'subagent_start').map((result) => result.text)).toEqual([
      SUBAGENT_TEXTS.depthExceeded(0),
      SUBAGENT_TEXTS.depthExceeded(0),
    ]);
  });

  it('wait_timeout_ms: a blocking task stops waiting at the agent limit', async () => {
    const { ask } = await setup({ wait_timeout_ms: 50 });
    const { run } = await ask('wait');
    expect(run.status).toBe('completed');
    expect(run.output).toContain('The subagent is still running');
  });

  it('child_result_cap_bytes: a longer child result is spilled to the workdir', async () => {
    const { h, ask } = await setup({ child_result_cap_bytes: 50 });
    const { run, thread } = await ask('long');
    const [result] = toolResults(thread, 'task');
    const [child] = await h.storage.runs.listChildren(run.id);
    expect(result?.text).toContain(`Result kept in the workdir: ${keptResultPath(child?.id ?? '')} (`);
    expect(result?.text).toContain('200 bytes');
  });

  it('delegation_max_depth 0: the agent may not delegate', async () => {
    const { ask } = await setup({ delegation_max_depth: 0 });
    const { run } = await ask('delegate this');
    expect(run.output).toBe(`delegated: ${DELEGATION_TEXTS.depthExceeded(0)}`);
  });

  it('max_steps: the run stops at the agent limit', async () => {
    const { ask } = await setup({ max_steps: 2 });
    const { run, thread } = await ask('loop');
    expect(run.status).toBe('interrupted');
    expect(run.error?.type).toBe('max_steps');
    expect(toolResults(thread, 'ls')).toHaveLength(2);
  });
});
