import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../run-limits.js';
import { buildSubagentSpecs } from '../../core/subagent-specs/build-subagent-specs.js';
import { isReservedName, isReservedTool } from '../../core/subagent-specs/reserved-names.js';
import { ALWAYS_DISABLED_FOR_SUBAGENTS } from '../../core/subagents/subagent-tool-policy.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import type { Run } from '../../core/records/run.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import type { ToolCallRequest } from '../../core/ports/agent-middleware.js';
import { createSubagentToolFilterMiddleware } from '../middleware/subagent-tool-filter-middleware.js';
import type { RunEmitter } from '../events/run-emitter.js';
import { createDelegationMiddleware } from './create-delegation-middleware.js';
import { DELEGATION_TEXTS } from '../../core/delegation/delegation-texts.js';

/** A main agent hands `task` to a subagent whose scenario tries to delegate anyway. */
const MAIN = `
rules:
  - steps:
      - tool_calls: [{ name: task, args: { subagent_slug: helper, description: "please ask @analyst" } }]
      - text: "Main got: {{last_tool_result}}"
`;
const HELPER = `
rules:
  - steps:
      - tool_calls: [{ name: delegate, args: { expert: analyst, task: "{{input}}" } }]
      - text: "delegated"
`;

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function setup() {
  const h = await createRuntimeHarness({
    scenarios: { main: MAIN, helper: HELPER, analyst: 'rules: [{ steps: [{ text: ok }] }]' },
  });
  harness = h;
  const user = await h.createUser('alice');
  await h.storage.users.setDelegationPolicy(user.id, 'all', []);
  const helper = await h.createAgent(
    user,
    'helper',
    { model: 'scripted:helper', tools: ['*'] },
    { backend: 'subagent', is_subagent: true },
  );
  const main = await h.createAgent(user, 'main', {
    model: 'scripted:main',
    tool_approval_mode: 'always_trust',
  });
  const analyst = await h.createAgent(
    user,
    'analyst',
    { model: 'scripted:analyst' },
    { status: 'published' },
  );
  return { h, user, helper, main, analyst };
}

describe('subagents never get delegate', () => {
  it('is not offered to a subagent run: its scripted delegate call fails and no delegation run exists', async () => {
    const { h, user, main } = await setup();
    const conversation = await h.createConversation(user, main);
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    await h.runs.await(user, run.id, 15_000);
    const [child] = await h.storage.runs.listChildren(run.id);
    expect(child?.run_type).toBe('subagent');
    expect(child?.status).toBe('failed');
    expect(child?.error?.message).toMatch(/delegate/);
    expect(await h.storage.runs.listChildren(child?.id ?? '')).toEqual([]);
    const all = await h.storage.runs.listByRoot(run.id);
    expect(all.filter((entry) => entry.run_type === 'delegation')).toEqual([]);
    expect(toolResults(await h.storage.messages.list(conversation.thread_id), 'task')[0]?.isError).toBe(true);
  });

  it('mounts no delegation middleware on a subagent run, even with a roster and an @mention', async () => {
    const { h, user, helper, main } = await setup();
    const factory = createDelegationMiddleware({
      storage: h.storage,
      limits: DEFAULT_LIMITS,
      service: h.delegation,
      verify: h.verify,
    });
    const setupOf = (run: Partial<Run>, agent = main) => ({
      run: { user_id: user.id, run_type: 'chat', input: { message: 'ask @analyst' }, ...run } as Run,
      agent,
      user,
      conversation: {} as never,
      project: {} as never,
      hasLedger: false,
      emitter: {} as RunEmitter,
      tools: [],
    });
    expect((await factory(setupOf({}))).map((layer) => layer.tools?.map((tool) => tool.name))).toEqual([
      ['delegate'],
    ]);
    expect(await factory(setupOf({ run_type: 'subagent' }, helper))).toEqual([]);
    // A subagent agent record is refused whatever the run type says.
    expect(await factory(setupOf({ run_type: 'chat' }, helper))).toEqual([]);
  });

  it('is hidden from the model and refused at execution by the subagent tool filter', async () => {
    const filter = createSubagentToolFilterMiddleware('always_trust');
    const delegateTool = {
      name: 'delegate',
      description: '',
      inputSchema: {} as never,
      execute: () => Promise.resolve('ran'),
    };
    const seen: string[] = [];
    await filter.wrapModelCall?.({ tools: [delegateTool] } as never, (request) => {
      seen.push(...request.tools.map((tool) => tool.name));
      return Promise.resolve({
        text: '',
        toolCalls: [],
        usage: { input_tokens: 0, output_tokens: 0 },
        finishReason: 'stop',
      });
    });
    expect(seen).toEqual([]);
    let executed = false;
    const result = await filter.wrapToolCall?.(
      { toolName: 'delegate', tool: delegateTool } as unknown as ToolCallRequest,
      () => {
        executed = true;
        return Promise.resolve({ output: 'ran', isError: false });
      },
    );
    expect(executed).toBe(false);
    const text = SUBAGENT_TEXTS.toolNotAvailable('delegate');
    expect(result).toEqual({
      output: text,
      isError: true,
      refusal: { code: 'tool_not_available', reason: text, tool: 'delegate' },
    });
    expect(ALWAYS_DISABLED_FOR_SUBAGENTS).toContain('delegate');
  });

  it('is a reserved name for inline specs: refused by name and stripped from "*"', () => {
    expect(isReservedName('delegate')).toBe(true);
    expect(isReservedName('Delegate')).toBe(true);
    expect(isReservedTool('delegate')).toBe(true);
    const result = buildSubagentSpecs({
      specs: [
        { name: 'delegate', description: 'd', system_prompt: 'p', tools: ['read_file'] },
        { name: 'wild', description: 'd', system_prompt: 'p', tools: ['*'] },
        { name: 'explicit', description: 'd', system_prompt: 'p', tools: ['delegate', 'read_file'] },
      ],
      parentTools: ['read_file', 'delegate'],
      parentModel: 'scripted:parent',
      builtins: [],
    });
    expect(result.subagents.map((subagent) => [subagent.name, subagent.tools])).toEqual([
      ['wild', ['read_file']],
      ['explicit', ['read_file']],
    ]);
    expect(result.report.map((entry) => entry.code)).toContain('reserved_name');
  });

  it('refuses a delegation whose parent is a subagent run, whatever the caller', async () => {
    const { h, user, helper, main, analyst } = await setup();
    const conversation = await h.createConversation(user, main);
    const parentId = crypto.randomUUID();
    const parent = await h.storage.runs.insert({
      id: parentId,
      thread_id: 'thr_subagent_parent',
      conversation_id: conversation.id,
      agent_id: helper.id,
      user_id: user.id,
      run_type: 'subagent',
      source: 'subagent',
      channel: 'internal',
      request_id: 'req-subagent-parent',
      created_by_run_id: null,
      root_run_id: parentId,
      depth: 1,
      subagent_thread_relation_id: null,
      runtime_scope_id: conversation.thread_id,
      tool_approval_mode: 'default',
      model_spec: 'scripted:helper',
      input: { message: 'x' },
    });
    const started = await h.delegation.start({
      actor: user,
      expert: analyst.slug,
      task: 'x',
      parent,
      channel: 'internal',
    });
    expect(started).toEqual({ kind: 'refused', error: DELEGATION_TEXTS.subagentCannotDelegate });
  });
});
