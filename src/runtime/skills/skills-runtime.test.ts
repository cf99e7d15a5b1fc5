import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../core/records/agent.js';
import { skillDigest } from '../../core/skills/build-skill-package.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { skillMd } from '../../../test/helpers/skills/skill-archives.js';
import { SKILLS_READ_ONLY_TEXT } from './skills-write-guard.js';
import { useSkillsWorld } from '../../../test/helpers/skills/use-skills-world.js';

const world = useSkillsWorld();

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

  it('leaves out a skill it cannot project (the build report says why, no host path anywhere) and runs on', async () => {
    const warnings: string[] = [];
    const { h, seen, alice, add } = await world(
      { solo: 'rules:\n  - steps:\n      - text: "ok"\n' },
      (message) => warnings.push(message),
    );
    await add(alice, 'fine');
    // Stored before names were measured in bytes: 200 two-byte characters, 400 bytes, over a file system's 255.
    const files = [
      { path: 'SKILL.md', content: new TextEncoder().encode(skillMd('wide', 'Use wide well')) },
      { path: `${'é'.repeat(200)}.md`, content: new TextEncoder().encode('x') },
    ];
    await h.storage.skills.create({
      name: 'wide',
      owner_id: alice.id,
      visibility: 'private',
      description: 'Use wide well',
      digest: skillDigest(files),
      total_bytes: 14,
      files,
    });
    const agent = await h.createAgent(alice, 'solo', { model: 'scripted:solo', skills: ['wide', 'fine'] });
    const report = await h.runtime.buildReports.forRecord(alice, agent);
    expect(report.report).toEqual([
      expect.objectContaining({ code: 'invalid_skill', value: 'wide', spec_index: null }),
    ]);
    expect(report.report[0]?.message).toContain('has a name longer than 255 bytes');

    const conversation = await h.createConversation(alice, agent);
    const workdir = (await h.storage.projects.get(conversation.project_id))?.workdir ?? '';
    const { run } = await h.runs.postMessage(alice, conversation.id, { content: 'hi' });
    const ended = (await h.runs.await(alice, run.id, 20_000)).run;
    expect(ended.status).toBe('completed');
    const listed = [...(seen.get('solo')?.system ?? '').matchAll(/^- ([a-z-]+): Use /gm)].map(
      (match) => match[1],
    );
    expect(listed).toEqual(['fine']);
    expect(existsSync(path.join(workdir, '.skills/wide'))).toBe(false);
    expect(warnings).toEqual([expect.stringContaining('Skill wide was not projected')]);
    const shown = JSON.stringify([warnings, report, ended, await h.storage.events.list(run.id, 0, 1000)]);
    expect(shown).not.toContain(h.dir);
    expect(shown).not.toContain('/proc/self');
  });
});
