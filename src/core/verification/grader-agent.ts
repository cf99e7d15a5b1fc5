import type { Agent } from '../records/agent.js';
import type { Run } from '../records/run.js';
import { GRADER_TEXTS } from './grader-texts.js';

/** The grader's only tools: it reads the shared workdir, never changes it (docs/verified-delegation.md#the-grader). */
export const GRADER_TOOLS = ['read_file', 'ls', 'glob', 'grep'] as const;

/** Model turns a grader may take: a few reads, then its verdict. */
const GRADER_MAX_STEPS = 8;

/**
 * The Agent a grader run plays: the record of the agent whose `config.grader` applies (same id and owner, so
 * access checks keep working) with the grader's prompt, model and read-only tools, marked as a subagent so no
 * middleware mounts subagent or delegation tools on it.
 */
export function graderAgent(base: Agent, model?: string): Agent {
  const grader = base.config.grader;
  return {
    ...base,
    slug: 'grader',
    name: 'grader',
    description: 'Independent grader of a child result',
    backend: 'subagent',
    is_subagent: true,
    is_default: false,
    config: {
      system_prompt: GRADER_TEXTS.systemPrompt(grader?.rubric),
      ...((model ?? grader?.model) ? { model: model ?? grader?.model } : {}),
      tools: [...GRADER_TOOLS],
      tool_approval_mode: 'default',
      max_steps: GRADER_MAX_STEPS,
      ...(base.config.limits ? { limits: { ...base.config.limits } } : {}),
    },
  };
}

/** Revisions a child is asked for before its last verdict stands: `config.grader.max_revisions`, default 1. */
export function maxRevisions(base: Pick<Agent, 'config'> | undefined): number {
  return base?.config.grader?.max_revisions ?? 1;
}

export function isGraderRun(run: Pick<Run, 'run_type'>): boolean {
  return run.run_type === 'grader';
}
