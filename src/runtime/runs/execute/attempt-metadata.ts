import type { Agent } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import type { RunEventBody } from '../../../core/records/run-event.js';

/**
 * The `metadata` event that opens every attempt of a run: who runs what, on which model, which try, and the
 * run's usage so far.
 */
export function attemptMetadata(run: Run, agent: Agent, model: string): RunEventBody<'metadata'> {
  return {
    request_id: run.request_id,
    agent_id: agent.id,
    agent_slug: agent.slug,
    user_id: run.user_id,
    run_type: run.run_type,
    source: run.source,
    channel: run.channel,
    model,
    attempt: run.attempt,
    created_by_run_id: run.created_by_run_id,
    subagent_slug: agent.is_subagent ? agent.slug : null,
    // What earlier attempts spent, as stored when they stopped: the trace counts a call they left open from it.
    usage: run.usage,
  };
}
