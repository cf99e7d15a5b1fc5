import { describe, expect, it } from 'vitest';
import { DELEGATION_TEXTS } from '../../core/delegation/delegation-texts.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { ask, useDelegationWorld } from '../../../test/helpers/runtime/delegation-world.js';
import { withoutVerification } from '../../../test/helpers/without-verification.js';

const setup = useDelegationWorld();

describe('delegate: the refusals and limits of a hand-off from A', () => {
  it('re-checks at call time: B made non-delegatable after the roster was built is refused', async () => {
    const world = await setup();
    const { run, thread } = await ask(world, 'stale roster');
    expect(toolResults(thread, 'delegate')).toEqual([
      { name: 'delegate', text: DELEGATION_TEXTS.notDelegatable, isError: true },
    ]);
    expect(run.output).toBe(`A got: ${DELEGATION_TEXTS.notDelegatable}`);
    expect(await world.h.storage.runs.listChildren(run.id)).toEqual([]);
  });

  it.each([
    ['closed', DELEGATION_TEXTS.notDelegatable],
    ['secret', DELEGATION_TEXTS.notFound],
  ])(
    'answers a call for "%s" (outside the roster) with the refusal text, as an error result',
    async (word, text) => {
      const world = await setup();
      const { run, thread } = await ask(world, `ask ${word}`);
      expect(toolResults(thread, 'delegate')).toEqual([{ name: 'delegate', text, isError: true }]);
      expect(run.status).toBe('completed');
      expect(await world.h.storage.runs.listChildren(run.id)).toEqual([]);
    },
  );

  it("surfaces a failed expert run with its status and error, never as B's answer", async () => {
    const world = await setup();
    const { thread } = await ask(world, 'broken');
    const [result] = toolResults(thread, 'delegate');
    expect(result?.isError).toBe(true);
    expect(result?.text).toMatch(/^The delegated expert's run ended as failed: /);
  });

  it('lets B delegate to C within the depth limit, and refuses C → D past it', async () => {
    const world = await setup();
    const { h } = world;
    const { run } = await ask(world, 'chain deeper');
    expect(run.status).toBe('completed');
    const [bRun] = await h.storage.runs.listChildren(run.id);
    const [cRun] = await h.storage.runs.listChildren(bRun?.id ?? '');
    expect([bRun?.depth, cRun?.depth, cRun?.root_run_id]).toEqual([1, 2, run.id]);
    expect(await h.storage.runs.listChildren(cRun?.id ?? '')).toEqual([]);
    const cResults = toolResults(await h.storage.messages.list(cRun?.thread_id ?? ''), 'delegate');
    expect(cResults).toEqual([{ name: 'delegate', text: DELEGATION_TEXTS.depthExceeded(2), isError: true }]);
    expect(withoutVerification(run.output)).toBe(`A got: B got: C got: ${DELEGATION_TEXTS.depthExceeded(2)}`);
  });

  it('takes the depth limit from the settings', async () => {
    const world = await setup({ limits: { delegationMaxDepth: 1 } });
    const { run } = await ask(world, 'chain');
    const [bRun] = await world.h.storage.runs.listChildren(run.id);
    const bResults = toolResults(await world.h.storage.messages.list(bRun?.thread_id ?? ''), 'delegate');
    expect(bResults).toEqual([{ name: 'delegate', text: DELEGATION_TEXTS.depthExceeded(1), isError: true }]);
  });

  it('refuses a cycle A → B → A by ancestry', async () => {
    const world = await setup();
    const { run } = await ask(world, 'back');
    const [bRun] = await world.h.storage.runs.listChildren(run.id);
    const bResults = toolResults(await world.h.storage.messages.list(bRun?.thread_id ?? ''), 'delegate');
    expect(bResults).toEqual([
      { name: 'delegate', text: DELEGATION_TEXTS.cycle(['expert-a', 'expert-b'], 'expert-a'), isError: true },
    ]);
    expect(bResults[0]?.text).toBe(
      'Delegation cycle refused: expert-a is already working in this delegation chain (expert-a → expert-b → expert-a)',
    );
    expect(await world.h.storage.runs.listChildren(bRun?.id ?? '')).toEqual([]);
  });
});
