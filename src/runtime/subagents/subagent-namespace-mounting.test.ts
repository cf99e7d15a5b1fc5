import { afterEach, describe, expect, it } from 'vitest';
import type { Run } from '../../core/records/run.js';
import { resolveRunAgent } from '../agents/resolve-run-agent.js';
import { createWorkdirTools } from '../tools/workdir/create-workdir-tools.js';
import {
  closeInlineSubagentHarness,
  inlineSubagentSetup as setup,
  REPLY,
  runTurn,
  SCANNER_SPEC,
  taskCall,
} from '../../../test/helpers/runtime/inline-subagent-setup.js';

afterEach(closeInlineSubagentHarness);

describe('inline subagent specs at run time', () => {
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
