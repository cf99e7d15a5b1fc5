import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../core/records/agent.js';
import type { User } from '../../core/records/user.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import type { MiddlewareFactory } from '../middleware/middleware-factory.js';
import { SKILLS_READ_ONLY_TEXT } from './skills-write-guard.js';
import { skillMd, zipOf } from '../../../test/helpers/skills/skill-archives.js';

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** What each agent (by slug) was shown on its last model call. */
type Seen = Map<string, { system: string; tools: string[] }>;

function probe(seen: Seen): MiddlewareFactory {
  return () =>
    Promise.resolve([
      {
        name: 'probe',
        wrapModelCall(request, next) {
          seen.set(request.agent.slug, {
            system: request.system,
            tools: request.tools.map((tool) => tool.name).sort(),
          });
          return next(request);
        },
      },
    ]);
}

async function world(scenarios: Record<string, string>) {
  const seen: Seen = new Map();
  // The runtime wires install_skill and the skills middleware itself; the probe sees what they made.
  const h = await createRuntimeHarness({ scenarios, middleware: probe(seen) });
  harness = h;
  const skills = h.runtime.skills;
  const alice = await h.createUser('alice');
  const bob = await h.createUser('bob');
  const add = (owner: User, name: string, visibility: 'private' | 'public' = 'private') =>
    skills.createFromArchive(
      owner,
      zipOf([{ path: `${name}/SKILL.md`, content: skillMd(name, `Use ${name} well`) }]),
      { visibility },
    );
  return { h, seen, alice, bob, add, skills };
}

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

const MAIN = `
rules:
  - steps:
      - tool_calls:
          - name: write_file
            args: { path: .skills/alpha/SKILL.md, content: pwned }
          - name: write_file
            args: { path: notes/../.skills/planted/SKILL.md, content: pwned }
      - tool_calls:
          - name: task
            args: { subagent_slug: helper, description: help }
      - tool_calls:
          - name: task
            args: { subagent_slug: scanner, description: scan }
      - text: done
`;
const HELPER = `
rules:
  - steps:
      - tool_calls:
          - name: read_file
            args: { path: .skills/alpha/SKILL.md }
          - name: read_file
            args: { path: .skills/beta/SKILL.md }
          - name: write_file
            args: { path: .skills/beta/SKILL.md, content: child pwned }
      - text: helper done
`;
const SCANNER = `
rules:
  - steps:
      - tool_calls:
          - name: read_file
            args: { path: .skills/gamma/SKILL.md }
      - text: scanner done
`;

describe('skills at run time', () => {
  it("projects each run's own skills read-only into the shared workdir and lists only those in its prompt", async () => {
    const { h, seen, alice, bob, add } = await world({ main: MAIN, helper: HELPER, scanner: SCANNER });
    for (const name of ['alpha', 'beta', 'gamma']) await add(alice, name);
    await add(bob, 'bobs-secret');
    await add(bob, 'bobs-public', 'public');
    await h.createAgent(
      alice,
      'helper',
      { model: 'scripted:helper', tools: ['read_file', 'write_file', 'install_skill'], skills: ['beta'] },
      {
        backend: 'subagent',
        is_subagent: true,
      },
    );
    const config: AgentConfig = {
      model: 'scripted:main',
      tools: ['read_file', 'write_file', 'ls', 'install_skill'],
      skills: ['alpha', 'bobs-secret', 'bobs-public', 'missing'],
      subagents: ['helper'],
      subagent_specs: [
        {
          name: 'scanner',
          description: 'Scans',
          system_prompt: 'Scan.',
          tools: ['read_file'],
          model: 'scripted:scanner',
          skills: ['gamma'],
        },
      ],
      tool_approval_mode: 'always_trust',
    };
    const main = await h.createAgent(alice, 'main', config);
    const conversation = await h.createConversation(alice, main);
    const project = await h.storage.projects.get(conversation.project_id);
    const workdir = project?.workdir ?? '';

    const { run } = await h.runs.postMessage(alice, conversation.id, { content: 'go' });
    expect((await h.runs.await(alice, run.id, 30_000)).run.status).toBe('completed');

    // Prompts: each run lists exactly its own usable skills.
    const listed = (slug: string) =>
      [...(seen.get(slug)?.system ?? '').matchAll(/^- ([a-z-]+): Use /gm)].map((match) => match[1]);
    expect(listed('main')).toEqual(['alpha', 'bobs-public']);
    expect(listed('helper')).toEqual(['beta']);
    expect(listed('scanner')).toEqual(['gamma']);
    expect(seen.get('main')?.system).toContain('read `.skills/{name}/SKILL.md`');
    expect(seen.get('main')?.tools).toContain('install_skill');

    // One shared .skills/ folder; bob's private skill and planted paths never appear.
    const skillsDir = path.join(workdir, '.skills');
    for (const name of ['alpha', 'bobs-public', 'beta', 'gamma'])
      expect(existsSync(path.join(skillsDir, name, 'SKILL.md'))).toBe(true);
    expect(existsSync(path.join(skillsDir, 'bobs-secret'))).toBe(false);
    expect(existsSync(path.join(skillsDir, 'missing'))).toBe(false);
    expect(existsSync(path.join(skillsDir, 'planted'))).toBe(false);
    expect(readFileSync(path.join(skillsDir, 'alpha/SKILL.md'), 'utf8')).toBe(
      skillMd('alpha', 'Use alpha well'),
    );
    expect(readFileSync(path.join(skillsDir, 'beta/SKILL.md'), 'utf8')).toBe(
      skillMd('beta', 'Use beta well'),
    );

    // Writes under .skills/ are refused for the parent and the child alike.
    const mainWrites = toolResults(await h.storage.messages.list(conversation.thread_id), 'write_file');
    expect(mainWrites.map((result) => result.isError)).toEqual([true, true]);
    expect(mainWrites.map((result) => result.text).sort()).toEqual(
      [
        SKILLS_READ_ONLY_TEXT('.skills/alpha/SKILL.md'),
        SKILLS_READ_ONLY_TEXT('notes/../.skills/planted/SKILL.md'),
      ].sort(),
    );
    const [helperRun, scannerRun] = await h.storage.runs.listChildren(run.id);
    const helperThread = await h.storage.messages.list(helperRun?.thread_id ?? '');
    expect(toolResults(helperThread, 'write_file')).toEqual([
      { name: 'write_file', text: SKILLS_READ_ONLY_TEXT('.skills/beta/SKILL.md'), isError: true },
    ]);
    // The child reads the parent's projected skill: the folder is shared by the run tree.
    const reads = toolResults(helperThread, 'read_file')
      .map((result) => result.text)
      .join('\n');
    expect(reads).toContain('Use alpha well');
    expect(reads).toContain('Use beta well');
    const scannerReads = toolResults(await h.storage.messages.list(scannerRun?.thread_id ?? ''), 'read_file');
    expect(scannerReads[0]?.text).toContain('Use gamma well');
  });

  it('projects nothing and adds no prompt section for an agent without usable skills', async () => {
    const { h, seen, alice, bob, add } = await world({ solo: 'rules:\n  - steps:\n      - text: "ok"\n' });
    await add(bob, 'bobs-secret');
    const agent = await h.createAgent(alice, 'solo', { model: 'scripted:solo', skills: ['bobs-secret'] });
    const conversation = await h.createConversation(alice, agent);
    const { run } = await h.runs.postMessage(alice, conversation.id, { content: 'hi' });
    expect((await h.runs.await(alice, run.id, 20_000)).run.status).toBe('completed');
    expect(seen.get('solo')?.system).not.toContain('## Skills');
    const project = await h.storage.projects.get(conversation.project_id);
    expect(existsSync(path.join(project?.workdir ?? '', '.skills', 'bobs-secret'))).toBe(false);
  });

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
