import { afterEach, describe, expect, it } from 'vitest';
import { DELEGATION_TEXTS } from '../../core/delegation/delegation-texts.js';
import type { Run } from '../../core/records/run.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
  type RuntimeHarnessOptions,
} from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { lineageOf } from '../events/lineage-of.js';
import { withoutVerification } from '../../../test/helpers/without-verification.js';

/** A chat expert that hands everything to B. */
const EXPERT_A = `
rules:
  - steps:
      - tool_calls: [{ name: delegate, args: { expert: expert-b, task: "{{input}}" } }]
      - text: "A got: {{last_tool_result}}"
`;
/** B asks its own subagent, or (for a chain) hands the task on to C. */
const EXPERT_B = `
rules:
  - when: { contains: chain }
    steps:
      - tool_calls: [{ name: delegate, args: { expert: expert-c, task: "{{input}}" } }]
      - text: "B got: {{last_tool_result}}"
  - steps:
      - tool_calls: [{ name: task, args: { subagent_slug: helper, description: "B asks: {{input}}" } }]
      - text: "B got: {{last_tool_result}}"
`;
/** C, two delegation hops down, asks its subagent and tries a third delegation hop. */
const EXPERT_C = `
rules:
  - steps:
      - tool_calls:
          - { name: task, args: { subagent_slug: helper, description: "C asks: {{input}}" } }
          - { name: delegate, args: { expert: expert-d, task: "{{input}}" } }
      - text: "C done"
`;
const HELPER = `rules:\n  - steps:\n      - text: "helper did <{{input}}>"\n`;
const EXPERT_D = `rules:\n  - steps:\n      - text: "D says <{{input}}>"\n`;

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function setup(options: RuntimeHarnessOptions = {}) {
  const h = await createRuntimeHarness({
    scenarios: { a: EXPERT_A, b: EXPERT_B, c: EXPERT_C, d: EXPERT_D, helper: HELPER },
    ...options,
  });
  harness = h;
  const alice = await h.createUser('alice');
  await h.storage.users.setDelegationPolicy(alice.id, 'all', []);
  await h.createAgent(
    alice,
    'helper',
    { model: 'scripted:helper' },
    { backend: 'subagent', is_subagent: true, description: 'Helps' },
  );
  const expert = (slug: string, model: string) =>
    h.createAgent(alice, slug, { model, subagents: ['helper'] }, { status: 'published', name: slug });
  const a = await expert('expert-a', 'scripted:a');
  await expert('expert-b', 'scripted:b');
  await expert('expert-c', 'scripted:c');
  await expert('expert-d', 'scripted:d');
  const conversation = await h.createConversation(alice, a);
  const ask = async (content: string): Promise<Run> => {
    const { run } = await h.runs.postMessage(alice, conversation.id, { content });
    return (await h.runs.await(alice, run.id, 20_000)).run;
  };
  const onlyChild = async (parent: Run | undefined): Promise<Run | undefined> => {
    const children = await h.storage.runs.listChildren(parent?.id ?? '');
    expect(children).toHaveLength(1);
    return children[0];
  };
  return { h, ask, onlyChild };
}

describe('an expert reached through delegate is a main agent in its own run', () => {
  it('calls its own registered subagent with `task`, at the default subagent depth limit (1)', async () => {
    const { h, ask, onlyChild } = await setup();
    const run = await ask('the numbers');
    const bRun = await onlyChild(run);
    const helperRun = await onlyChild(bRun);
    expect(bRun).toMatchObject({ run_type: 'delegation', depth: 1, status: 'completed' });
    expect(helperRun).toMatchObject({
      run_type: 'subagent',
      depth: 2,
      created_by_run_id: bRun?.id,
      root_run_id: run.id,
      status: 'completed',
      output: 'helper did <B asks: the numbers>',
    });
    const [taskResult] = toolResults(await h.storage.messages.list(bRun?.thread_id ?? ''), 'task');
    expect({ ...taskResult, text: withoutVerification(taskResult?.text) }).toEqual({
      name: 'task',
      text: `${SUBAGENT_TEXTS.threadPrefix(helperRun?.thread_id ?? '')}helper did <B asks: the numbers>`,
      isError: false,
    });
    expect(taskResult?.text).toContain('[verification] unverified');
    expect(withoutVerification(run.output)).toBe(
      `A got: B got: ${withoutVerification(taskResult?.text) ?? ''}`,
    );
  });

  it("gives every event of every run in the tree that run's own lineage, subagent_update included", async () => {
    const { h, ask } = await setup();
    const run = await ask('chain');
    const tree = await h.storage.runs.listByRoot(run.id);
    expect(tree.map((member) => member.depth).sort()).toEqual([0, 1, 2, 3]);
    for (const member of tree) {
      const events = await h.storage.events.list(member.id, 0, 1000);
      const children = tree.filter((other) => other.created_by_run_id === member.id);
      // Each child reports its start, its claim and its end on this run's stream.
      expect(events.filter((event) => event.type === 'subagent_update')).toHaveLength(children.length * 3);
      const lineage = lineageOf(member);
      for (const event of events) {
        const { root_run_id, parent_run_id, parent_tool_call_id, depth } = event.payload;
        const carried = { root_run_id, parent_run_id, parent_tool_call_id, depth };
        // A subagent_update names the tool call that started the child, not the one that started this run.
        const childId = event.type === 'subagent_update' ? event.payload.run_id : undefined;
        const child = children.find((other) => other.id === childId);
        const expected =
          event.type === 'subagent_update'
            ? { ...lineage, parent_tool_call_id: child?.input.parent_tool_call_id }
            : lineage;
        expect(carried, `${event.type} #${event.seq} of ${member.id}`).toEqual(expected);
      }
    }
  });

  it('counts delegation hops alone against the delegation limit: C (two hops down) keeps its subagent, not a third hop', async () => {
    const { h, ask, onlyChild } = await setup();
    const run = await ask('chain');
    const bRun = await onlyChild(run);
    const cRun = await onlyChild(bRun);
    expect([bRun?.depth, cRun?.depth]).toEqual([1, 2]);
    const cThread = await h.storage.messages.list(cRun?.thread_id ?? '');
    expect(toolResults(cThread, 'delegate')).toEqual([
      { name: 'delegate', text: DELEGATION_TEXTS.depthExceeded(2), isError: true },
    ]);
    const [taskResult] = toolResults(cThread, 'task');
    expect(taskResult?.isError).toBe(false);
    expect(taskResult?.text).toContain('helper did <C asks: chain>');
    const [helperRun] = await h.storage.runs.listChildren(cRun?.id ?? '');
    expect(helperRun).toMatchObject({ run_type: 'subagent', depth: 3, root_run_id: run.id });
  });

  it('still refuses its subagents past the subagent depth limit (set to 0)', async () => {
    const { h, ask, onlyChild } = await setup({ limits: { subagentMaxDepth: 0 } });
    const run = await ask('the numbers');
    const bRun = await onlyChild(run);
    const [taskResult] = toolResults(await h.storage.messages.list(bRun?.thread_id ?? ''), 'task');
    expect(taskResult).toEqual({ name: 'task', text: SUBAGENT_TEXTS.depthExceeded(0), isError: true });
    expect(await h.storage.runs.listChildren(bRun?.id ?? '')).toEqual([]);
  });
});
