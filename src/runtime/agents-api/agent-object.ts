import { TroupeError } from '../../core/errors.js';
import type { Agent, AgentConfig } from '../../core/records/agent.js';
import type { ApiAgent, ApiAgentSettings } from './agents-api-objects.js';
import { seconds } from './turn-object.js';

/** What `POST /v1/agents` and `POST /v1/agents/{id}` may set, after the HTTP layer checked the shape. */
export interface AgentWrite {
  name?: string | null | undefined;
  instructions?: string | null | undefined;
  model?: string | undefined;
  metadata?: Record<string, string> | null | undefined;
  tools?: unknown[] | null | undefined;
  multi_agent?: { enabled: boolean; max_concurrent_subagents?: number | undefined } | null | undefined;
}

/** The name an unnamed agent gets: Troupe's agents always have one. */
export const UNNAMED_AGENT = 'Agent';

/** An agent's settings as a session shows them: Troupe's record, with the SDK's defaults for what it lacks. */
export function agentSettings(agent: Pick<Agent, 'name' | 'config'>, defaultModel: string): ApiAgentSettings {
  const config = agent.config;
  return {
    name: agent.name,
    instructions: config.system_prompt ?? null,
    model: config.model ?? defaultModel,
    multi_agent: {
      // Every main agent may start subagents (docs/subagents.md); the cap is its per-run children limit.
      enabled: true,
      max_concurrent_subagents: config.limits?.max_children_per_run ?? null,
    },
    reasoning: { effort: null, summary: null },
    service_tier: 'auto',
    text: { format: { type: 'text' }, verbosity: 'medium' },
    // Troupe's tools run on the server and are named in `config.tools`; none is a client-side tool.
    tools: [],
  };
}

export function toApiAgent(agent: Agent, defaultModel: string): ApiAgent {
  return {
    id: agent.id,
    object: 'agent',
    created_at: seconds(agent.created_at),
    updated_at: seconds(agent.updated_at),
    metadata: {},
    ...agentSettings(agent, defaultModel),
  };
}

function refuse(param: string, message: string): TroupeError {
  return new TroupeError('validation_failed', message, { details: { param } });
}

/** Refuses what Troupe's agent record cannot hold, rather than dropping it silently. */
function checkWrite(write: AgentWrite): void {
  if (write.metadata && Object.keys(write.metadata).length > 0) {
    throw refuse('metadata', 'Troupe agents have no metadata; set metadata on sessions instead');
  }
  if (write.tools && write.tools.length > 0) {
    throw refuse(
      'tools',
      "Troupe agents use the server's tools, named in the agent's config.tools (PUT /api/agent/{id}); " +
        'client-side tools are not supported',
    );
  }
  if (write.multi_agent?.enabled === false) {
    throw refuse('multi_agent.enabled', 'Troupe main agents can always start subagents');
  }
}

/** The agent config after a write: only the keys the write names change. */
export function configAfter(config: AgentConfig, write: AgentWrite): AgentConfig {
  checkWrite(write);
  const next: AgentConfig = { ...config };
  if (write.instructions !== undefined) {
    if (write.instructions === null || write.instructions === '') delete next.system_prompt;
    else next.system_prompt = write.instructions;
  }
  if (write.model !== undefined) next.model = write.model;
  const cap = write.multi_agent?.max_concurrent_subagents;
  if (cap !== undefined) next.limits = { ...next.limits, max_children_per_run: cap };
  return next;
}
