import type { Storage } from '../../core/ports/storage.js';
import type { RunLimits } from '../../run-limits.js';
import { effectiveLimits } from '../agents/agent-limits.js';
import type { MiddlewareFactory } from '../middleware/middleware-factory.js';
import { createDelegateTool } from './delegate-tool.js';
import type { DelegationRunService } from './delegation-run-service.js';
import { delegationPromptSection } from './delegation-prompt.js';
import { buildRoster } from './roster.js';
import { runCapabilities } from '../../core/runs/run-capabilities.js';
import type { VerifyDeps } from '../verification/verify-child-result.js';

export interface DelegationMiddlewareDeps {
  storage: Storage;
  limits: RunLimits;
  service: DelegationRunService;
  verify: VerifyDeps;
}

/**
 * Mounts `delegate` and the roster section on main-agent runs — chat and delegation runs alike, so a
 * delegated expert may delegate further within the depth limit — and never on subagent runs (docs/subagents.md, docs/delegation.md:
 * permissions must not escape through nesting). The roster is recomputed for every run; empty means no
 * tool and no prompt section.
 */
export function createDelegationMiddleware(deps: DelegationMiddlewareDeps): MiddlewareFactory {
  return async ({ run, agent, user, hasLedger }) => {
    if (!runCapabilities(run, agent).startsAgents) return [];
    const roster = await buildRoster(deps.storage, {
      user,
      currentAgentId: agent.id,
      message: run.input.message,
    });
    if (roster.length === 0) return [];
    const section = delegationPromptSection(roster);
    return [
      {
        name: 'delegation',
        tools: [
          createDelegateTool({
            service: deps.service,
            verify: deps.verify,
            limits: effectiveLimits(deps.limits, agent.config),
            actor: user,
            roster,
            creator: { agent, hasLedger },
          }),
        ],
        wrapModelCall(request, next) {
          return next({ ...request, system: request.system ? `${request.system}\n\n${section}` : section });
        },
      },
    ];
  };
}
