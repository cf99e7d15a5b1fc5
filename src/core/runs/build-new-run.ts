import { ownRequestId } from '../ids.js';
import type { NewRun } from '../ports/storage.js';
import type { Agent } from '../records/agent.js';
import type { RunChannel, RunInput, RunType } from '../records/run.js';
import { lineageFor, type LineageParent } from './lineage.js';

export interface NewRunSpec {
  id: string;
  /** Also the run's `source`. */
  run_type: RunType;
  channel: RunChannel;
  user_id: string;
  agent: Pick<Agent, 'id' | 'config'>;
  thread_id: string;
  conversation_id: string;
  /** The creating run; none for a root (a chat turn, a top-level delegation). */
  parent: LineageParent | undefined;
  /** The caller's idempotency key; none gives the run its own. */
  request_id?: string | undefined;
  /** The model when the agent names none: the server default, or (inline subagent specs) the parent's. */
  fallback_model: string;
  subagent_thread_relation_id?: string | null;
  input: RunInput;
}

/**
 * The row of a new run, for chat turns and child runs alike: the model and tools are the agent's own, the
 * lineage is the creator's (`lineageFor`).
 */
export function buildNewRun(spec: NewRunSpec): NewRun {
  return {
    id: spec.id,
    thread_id: spec.thread_id,
    conversation_id: spec.conversation_id,
    agent_id: spec.agent.id,
    user_id: spec.user_id,
    run_type: spec.run_type,
    source: spec.run_type,
    channel: spec.channel,
    request_id: spec.request_id ?? ownRequestId(spec.id),
    ...lineageFor(spec.parent, { runId: spec.id, threadId: spec.thread_id, agent: spec.agent }),
    subagent_thread_relation_id: spec.subagent_thread_relation_id ?? null,
    model_spec: spec.agent.config.model ?? spec.fallback_model,
    input: spec.input,
  };
}
