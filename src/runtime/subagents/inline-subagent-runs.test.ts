import { afterEach, describe, expect, it } from 'vitest';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import {
  closeInlineSubagentHarness,
  inlineSubagentSetup as setup,
  REPLY,
  runTurn,
  SCANNER_SPEC,
  taskCall,
} from '../../../test/helpers/runtime/inline-subagent-setup.js';
import { withoutVerification } from '../../../test/helpers/without-verification.js';

afterEach(closeInlineSubagentHarness);

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
    expect(withoutVerification(result?.text)).toBe(
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
});
