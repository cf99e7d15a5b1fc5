import type { RunEndings } from '../runs/run-endings.js';
import type { EventBus } from '../../core/ports/event-bus.js';
import type { Storage } from '../../core/ports/storage.js';
import { buildAgentSubagents } from '../../core/subagent-specs/build-agent-subagents.js';
import { allowListSlugs, resolveAllowedSubagents } from '../../core/subagents/allowed-subagents.js';
import type { RunLimits } from '../../run-limits.js';
import { effectiveLimits } from '../agents/agent-limits.js';
import type { MiddlewareFactory } from '../middleware/middleware-factory.js';
import { subagentPromptSection } from './subagent-prompt.js';
import type { SubagentRunService } from './subagent-run-service.js';
import { subagentNamespace } from './subagent-namespace.js';
import { createSubagentTools } from './subagent-tools.js';
import { createLifecycleToolGate } from './lifecycle-tool-gate.js';
import { runCapabilities } from '../../core/runs/run-capabilities.js';
import type { VerifyDeps } from '../verification/verify-child-result.js';

export interface SubagentMiddlewareDeps {
  storage: Storage;
  bus: EventBus;
  endings: RunEndings;
  limits: RunLimits;
  service: SubagentRunService;
  verify: VerifyDeps;
}

/**
 * Mounts `task` and the lifecycle tools plus the prompt section on main-agent runs (the lifecycle tools shown
 * only once the run has started a background child: `lifecycle-tool-gate.ts`). The namespace is
 * recomputed for every run: built-ins and inline specs (rebuilt against this run's tools), then the
 * registered subagents the user can currently see. No subagents means no tools and no prompt.
 */
export function createSubagentMiddleware(deps: SubagentMiddlewareDeps): MiddlewareFactory {
  return async ({ run, agent, user, hasLedger, tools }) => {
    if (!runCapabilities(run, agent).startsAgents) return [];
    // Only the subagents the allow-list names (all of them without one): a run reads what it may call,
    // not every agent of the deployment.
    const slugs = allowListSlugs(agent.config.subagents);
    const visible = await deps.storage.agents.listUsable(user, {
      subagents_only: true,
      ...(slugs.length > 0 ? { slugs } : {}),
    });
    const registered = resolveAllowedSubagents(visible, agent.config.subagents);
    const { subagents } = buildAgentSubagents({
      config: agent.config,
      parentTools: tools.map((tool) => tool.name),
      parentModel: run.model_spec,
      approvalMode: run.tool_approval_mode,
    });
    const { entries: allowed, inline } = subagentNamespace(agent, subagents, registered);
    if (allowed.length === 0) return [];
    const section = subagentPromptSection(allowed);
    const gate = createLifecycleToolGate();
    return [
      {
        name: 'subagents',
        // The parent agent's own limits (wait timeout, result cap) narrow the server's for its tools.
        tools: createSubagentTools({
          ...deps,
          limits: effectiveLimits(deps.limits, agent.config),
          allowed,
          inline,
          creator: { agent, hasLedger },
        }),
        wrapModelCall(request, next) {
          return next({
            ...request,
            system: request.system ? `${request.system}\n\n${section}` : section,
            tools: gate(request.tools, request.messages),
          });
        },
      },
    ];
  };
}
