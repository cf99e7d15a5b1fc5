import path from 'node:path';
import type { NewAgent, Storage } from '../core/ports/storage.js';
import type { User } from '../core/records/user.js';
import { buildSkillPackage, type SkillPackage } from '../core/skills/build-skill-package.js';
import { DEFAULT_SKILL_LIMITS } from '../core/skills/skill-limits.js';
import { readSkillFolder } from './skills/read-skill-folder.js';
import { DEMO_KNOWLEDGE_SOURCE, seedDemoKnowledge } from './knowledge/seed-demo-knowledge.js';

export const DEMO_USER_NAME = 'demo';

/** Skills shipped in the repository (`demo/skills/*`), seeded public and owned by the demo user. */
export const DEMO_SKILLS_DIR = path.resolve(import.meta.dirname, '../../demo/skills');
export const DEMO_SKILL_NAMES = ['citation-style'] as const;

async function demoSkills(): Promise<SkillPackage[]> {
  return Promise.all(
    DEMO_SKILL_NAMES.map(async (name) =>
      buildSkillPackage(
        await readSkillFolder(DEMO_SKILLS_DIR, name, DEFAULT_SKILL_LIMITS),
        DEFAULT_SKILL_LIMITS,
      ),
    ),
  );
}

/**
 * The agents `npm start` shows on a fresh data dir: two main agents, two subagents and one expert. The
 * researcher selects the `citation-style` skill, so its runs get it projected and listed in their prompt.
 */
export function demoAgents(ownerId: string): NewAgent[] {
  const base = {
    owner_id: ownerId,
    visibility: 'public' as const,
    status: 'draft' as const,
    delegatable: true,
    delegation_brief: null,
    is_default: false,
  };
  return [
    {
      ...base,
      slug: 'assistant',
      name: 'Assistant',
      description: 'The main demo agent: works in the project workdir and hands subtasks to subagents.',
      backend: 'chat',
      is_subagent: false,
      is_default: true,
      config: {
        system_prompt: 'You are the Troupe demo assistant. Work in the project workdir; keep answers short.',
        model: 'scripted:demo',
        tools: [
          'read_file',
          'write_file',
          'edit_file',
          'ls',
          'glob',
          'grep',
          'ask_user_question',
          'present_artifacts',
        ],
        subagents: ['researcher', 'summarizer'],
        tool_approval_mode: 'always_trust',
        // Say "verify": the summarizer's first answer is rejected by this grader, its revision accepted.
        grader: { model: 'scripted:grader', max_revisions: 1 },
      },
    },
    {
      ...base,
      slug: 'researcher',
      name: 'Researcher',
      description: 'Investigates a question in the project files and reports findings.',
      backend: 'subagent',
      is_subagent: true,
      config: {
        system_prompt: 'You research one question and report what you found.',
        model: 'scripted:researcher',
        tools: ['read_file', 'ls', 'glob', 'grep'],
        skills: ['citation-style'],
        // Its own source: the assistant above has none, so only the researcher can search the handbook.
        knowledge_sources: [DEMO_KNOWLEDGE_SOURCE],
      },
    },
    {
      ...base,
      slug: 'summarizer',
      name: 'Summarizer',
      description: 'Condenses a text into a few sentences.',
      backend: 'subagent',
      is_subagent: true,
      config: {
        system_prompt: 'You summarise the text you are given in at most three sentences.',
        model: 'scripted:summarizer',
        tools: ['read_file'],
      },
    },
    {
      ...base,
      slug: 'analyst',
      name: 'Analyst',
      description: 'An expert that analyses a situation and recommends a course of action.',
      backend: 'chat',
      is_subagent: false,
      status: 'published',
      delegation_brief: 'Analyses a situation and recommends what to do next.',
      config: {
        system_prompt: 'You are an analyst. Recommend one course of action and say why.',
        model: 'scripted:analyst',
        tools: ['read_file', 'ls'],
      },
    },
    {
      ...base,
      slug: 'builder',
      name: 'Builder',
      description: 'Builds the project with sandboxed shell commands, each one after your approval.',
      backend: 'chat',
      is_subagent: false,
      config: {
        system_prompt: 'You build the project by running shell commands with execute. Keep answers short.',
        model: 'scripted:builder',
        tools: ['read_file', 'ls', 'glob', 'execute'],
        // Unlike the assistant, every sensitive call (each command) waits for the user's approval.
        tool_approval_mode: 'default',
      },
    },
  ];
}

/**
 * Seeds the demo admin and agents, once: only a database without users is seeded, so a restart never
 * overwrites what an admin changed. Returns the demo user when it exists.
 */
export async function seedDemo(storage: Storage): Promise<{ user: User | undefined; seeded: boolean }> {
  // Read before the transaction: the files are on disk, and SQLite's one connection waits for no one.
  const skills = await demoSkills();
  return storage.transaction(async (tx) => {
    if ((await tx.users.list()).length > 0) {
      return { user: await tx.users.getByName(DEMO_USER_NAME), seeded: false };
    }
    const user = await tx.users.create({ name: DEMO_USER_NAME, role: 'admin' });
    // `all`: the demo assistant sees the analyst expert in its roster without any setup (docs/delegation.md).
    const withPolicy = await tx.users.setDelegationPolicy(user.id, 'all', []);
    for (const agent of demoAgents(user.id)) {
      const created = await tx.agents.create(agent);
      await tx.access.grant(user.id, created.id, 'created');
      if (agent.is_default) await tx.agents.setDefault(created.id);
    }
    for (const skill of skills) await tx.skills.create({ ...skill, owner_id: user.id, visibility: 'public' });
    await seedDemoKnowledge(tx, user.id);
    return { user: withPolicy, seeded: true };
  });
}
