import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import type { User } from '../../core/records/user.js';
import type { Conversation } from '../../core/records/conversation.js';
import type { Project } from '../../core/records/project.js';
import type { RunEmitter } from '../events/run-emitter.js';
import type { AnyTroupeTool } from '../../core/tools/troupe-tool.js';
import type { AgentMiddleware } from '../../core/ports/agent-middleware.js';

/**
 * The run's context, loaded once by the executor and handed to every middleware factory: the run, the
 * agent it plays, the user it runs as, its conversation and project, and the tools it was given.
 */
export interface RunSetup {
  run: Run;
  agent: Agent;
  user: User;
  conversation: Conversation;
  project: Project;
  /** Whether the run has a budget ledger: one is created with its run and never removed. */
  hasLedger: boolean;
  emitter: RunEmitter;
  tools: AnyTroupeTool[];
}

/** Builds run-specific middleware (subagents, delegation, filtering, approvals); outermost first. */
export type MiddlewareFactory = (setup: RunSetup) => Promise<AgentMiddleware[]>;
