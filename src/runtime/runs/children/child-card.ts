import type { Agent } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import { inlineSubagentName } from '../../../core/subagents/inline-subagent-agent.js';

/**
 * How a child run is named on its parent's side. The status panel's cards and the parent stream's
 * `subagent_update` events both carry these fields, so a console can merge one into the other.
 */
export interface ChildCard {
  run_id: string;
  kind: 'subagent' | 'delegation' | 'grader';
  slug: string | null;
  name: string | null;
  status: Run['status'];
  child_thread_id: string;
  child_conversation_id: string;
  parent_tool_call_id: string | null;
}

/** `agent` is the child's agent record; an inline spec runs as its parent agent, so it shows the spec's name. */
export function childCard(run: Run, agent: Pick<Agent, 'slug' | 'name'> | undefined): ChildCard {
  const inline = inlineSubagentName(run);
  return {
    run_id: run.id,
    kind: run.run_type === 'delegation' || run.run_type === 'grader' ? run.run_type : 'subagent',
    slug: inline ?? agent?.slug ?? null,
    name: inline ?? agent?.name ?? null,
    status: run.status,
    child_thread_id: run.thread_id,
    child_conversation_id: run.conversation_id,
    parent_tool_call_id: run.input.parent_tool_call_id ?? null,
  };
}
