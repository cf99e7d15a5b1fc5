import type { Clock } from '../../core/clock.js';
import type { EventBus } from '../../core/ports/event-bus.js';
import type { Storage } from '../../core/ports/storage.js';
import { resolveAllowedSubagents } from '../../core/subagents/allowed-subagents.js';
import type { RunLimits } from '../../config.js';
import type { MiddlewareFactory } from '../run-executor.js';
import { subagentPromptSection } from './subagent-prompt.js';
import type { SubagentRunService } from './subagent-run-service.js';
import { createSubagentTools } from './subagent-tools.js';

export interface SubagentMiddlewareDeps {
  storage: Storage;
  bus: EventBus;
  clock: Clock;
  limits: RunLimits;
  service: SubagentRunService;
}

/**
 * Mounts `task` and the lifecycle tools plus the prompt section on main-agent runs. The allowed list is
 * recomputed for every run from the user's current visibility; no subagents means no tools and no prompt.
 */
export function createSubagentMiddleware(deps: SubagentMiddlewareDeps): MiddlewareFactory {
  return async ({ run, agent }) => {
    if (run.run_type === 'subagent' || agent.is_subagent) return [];
    const user = await deps.storage.users.get(run.user_id);
    if (!user) return [];
    const visible = await deps.storage.agents.listUsable(user, { include_subagents: true });
    const allowed = resolveAllowedSubagents(visible, agent.config.subagents);
    if (allowed.length === 0) return [];
    const section = subagentPromptSection(allowed);
    return [
      {
        name: 'subagents',
        tools: createSubagentTools({ ...deps, allowed }),
        wrapModelCall(request, next) {
          return next({ ...request, system: request.system ? `${request.system}\n\n${section}` : section });
        },
      },
    ];
  };
}
