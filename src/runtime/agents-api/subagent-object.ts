import type { Run } from '../../core/records/run.js';
import { isTerminalStatus } from '../../core/records/run.js';
import type { ApiSubagent } from './agents-api-objects.js';
import { seconds } from './turn-object.js';

/** One child conversation of a session: its runs, oldest first (the first one opened it). */
export interface ChildConversation {
  conversationId: string;
  runs: Run[];
  /** The child's agent as its parent names it: a subagent's slug, an inline spec's name. */
  name: string | null;
  /** The agent of the run that started it. */
  parentAgentId: string;
}

/**
 * A subagent is a child conversation of the session (docs/subagents.md#the-child-run): opened by its first
 * run, `active` while one of its runs is, closed when the last one ended. Its instructions are the task the
 * parent gave it.
 */
export function toApiSubagent(sessionId: string, child: ChildConversation): ApiSubagent {
  const first = child.runs[0];
  const active = child.runs.some((run) => !isTerminalStatus(run.status));
  const finished = child.runs.map((run) => run.finished_at).filter((at): at is string => at !== null);
  return {
    id: child.conversationId,
    object: 'agent.session.subagent',
    session_id: sessionId,
    name: child.name,
    parent_agent_id: child.parentAgentId,
    instructions: first ? [{ type: 'output_text', text: first.input.message }] : null,
    status: active ? 'active' : 'closed',
    opened_at: first ? seconds(first.created_at) : 0,
    closed_at: active || finished.length === 0 ? null : Math.max(...finished.map(seconds)),
  };
}
