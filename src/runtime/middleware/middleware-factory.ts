import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import type { RunEmitter } from '../run-emitter.js';
import type { AnyTroupeTool } from '../tools/troupe-tool.js';
import type { AgentMiddleware } from './agent-middleware.js';

/** Everything a middleware factory may need to build the per-run middleware stack. */
export interface RunSetup {
  run: Run;
  agent: Agent;
  emitter: RunEmitter;
  tools: AnyTroupeTool[];
}

/** Builds run-specific middleware (subagents, delegation, filtering, approvals); outermost first. */
export type MiddlewareFactory = (setup: RunSetup) => Promise<AgentMiddleware[]>;
