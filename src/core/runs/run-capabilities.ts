import type { Agent } from '../records/agent.js';
import type { Run } from '../records/run.js';

/** What a run may do, decided in one place (docs/subagents.md: permissions must not escape through nesting). */
export interface RunCapabilities {
  /**
   * The run plays a subagent: its tools pass the subagent filter instead of approvals, and tools that talk
   * to the user, install skills or start agents refuse it.
   */
  subagent: boolean;
  /** May mount the subagent tools and `delegate`: main agents only (chat and delegation runs). */
  startsAgents: boolean;
  /**
   * Takes steering messages between steps. Only a subagent run can be steered (`subagent_steer` accepts
   * only a subagent run its caller created), so no other run reads its inbox.
   */
  steerable: boolean;
}

export function runCapabilities(
  run: Pick<Run, 'run_type'>,
  agent?: Pick<Agent, 'is_subagent'>,
): RunCapabilities {
  const subagent = run.run_type === 'subagent';
  // A subagent agent record never spawns, even on a run that was not typed as a subagent run.
  return { subagent, startsAgents: !subagent && agent?.is_subagent !== true, steerable: subagent };
}
