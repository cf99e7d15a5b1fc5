import { describe, expect, it } from 'vitest';
import type { User } from '../../core/records/user.js';
import type { RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { useSkillsWorld } from '../../../test/helpers/skills/use-skills-world.js';

const world = useSkillsWorld();

/** Resolves once the run emits an event of this type (the run stays parked after it). */
async function untilEvent(h: RuntimeHarness, user: User, runId: string, type: string): Promise<void> {
  const controller = new AbortController();
  try {
    for await (const event of await h.runs.streamEvents(user, runId, 0, controller.signal)) {
      if (event.type === type) return;
    }
    throw new Error(`run ${runId} ended without a ${type} event`);
  } finally {
    controller.abort();
  }
}

describe('install_skill at run time', () => {
  it('install_skill turns a workdir folder into a private skill of the run user; a second install needs replace', async () => {
    const INSTALL = `
rules:
  - steps:
      - tool_calls:
          - name: write_file
            args: { path: drafts/made-here/SKILL.md, content: "---\\nname: made-here\\ndescription: Made in a run\\n---\\nSteps.\\n" }
      - tool_calls:
          - name: install_skill
            args: { path: drafts/made-here }
      - tool_calls:
          - name: install_skill
            args: { path: drafts/made-here }
      - tool_calls:
          - name: install_skill
            args: { path: drafts/made-here, replace: true }
      - text: installed
`;
    const { h, alice, bob, skills } = await world({ installer: INSTALL });
    const agent = await h.createAgent(alice, 'installer', {
      model: 'scripted:installer',
      tool_approval_mode: 'always_trust',
    });
    const conversation = await h.createConversation(alice, agent);
    const { run } = await h.runs.postMessage(alice, conversation.id, { content: 'install it' });
    expect((await h.runs.await(alice, run.id, 20_000)).run.status).toBe('completed');
    const results = toolResults(await h.storage.messages.list(conversation.thread_id), 'install_skill');
    expect(results.map((result) => [result.isError, result.text.split(' (')[0]])).toEqual([
      [false, 'Installed skill "made-here"'],
      [true, 'A skill named "made-here" already exists; upload with replace=true to publish a new version'],
      [false, 'Updated skill "made-here"'],
    ]);
    const skill = await h.storage.skills.getByName('made-here');
    expect(skill).toMatchObject({ owner_id: alice.id, visibility: 'private', description: 'Made in a run' });
    await expect(skills.get(bob, 'made-here')).rejects.toMatchObject({ code: 'skill_not_found' });
  });

  it('install_skill in default approval mode waits for a human decision (sensitive)', async () => {
    const ASK = `
rules:
  - steps:
      - tool_calls:
          - name: install_skill
            args: { path: anything }
      - text: after
`;
    const { h, alice } = await world({ asker: ASK });
    const agent = await h.createAgent(alice, 'asker', { model: 'scripted:asker' });
    const conversation = await h.createConversation(alice, agent);
    const { run } = await h.runs.postMessage(alice, conversation.id, { content: 'go' });
    await untilEvent(h, alice, run.id, 'approval_required');
    expect((await h.storage.approvals.listForRun(run.id)).map((approval) => approval.tool_name)).toEqual([
      'install_skill',
    ]);
    expect(await h.storage.skills.listUsable(alice)).toEqual([]);
  });

  it('never offers install_skill to a subagent, even one whose config lists it', async () => {
    const PARENT = `
rules:
  - steps:
      - tool_calls:
          - name: task
            args: { subagent_slug: sneaky, description: install it }
      - text: "parent: {{last_tool_result}}"
`;
    const SNEAKY = `
rules:
  - steps:
      - tool_calls:
          - name: install_skill
            args: { path: drafts/x }
      - text: sneaky done
`;
    const { h, alice } = await world({ parent: PARENT, sneaky: SNEAKY });
    await h.createAgent(
      alice,
      'sneaky',
      { model: 'scripted:sneaky', tools: ['read_file', 'install_skill'] },
      { backend: 'subagent', is_subagent: true },
    );
    const parent = await h.createAgent(alice, 'parent', {
      model: 'scripted:parent',
      tool_approval_mode: 'always_trust',
    });
    const conversation = await h.createConversation(alice, parent);
    const { run } = await h.runs.postMessage(alice, conversation.id, { content: 'go' });
    expect((await h.runs.await(alice, run.id, 20_000)).run.status).toBe('completed');
    const [child] = await h.storage.runs.listChildren(run.id);
    // The scripted model refuses a call to a tool it was not offered: proof that the filter hid it.
    expect(child?.status).toBe('failed');
    expect(child?.error?.type).toBe('scenario_invalid');
    expect(child?.error?.message).toContain('install_skill');
    expect(await h.storage.skills.listUsable(alice)).toEqual([]);
  });
});
