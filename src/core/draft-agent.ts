import type { Agent, AgentConfig } from './records/agent.js';

/**
 * A stand-in record for checking a config that no stored agent holds yet (the build report of a draft,
 * `troupe agents check`). It is owned by `ownerId` so that policies, such as which MCP servers may
 * start, judge the draft as that user's own agent; nothing else about it is ever stored or shown.
 */
export function draftAgent(config: AgentConfig, ownerId: string): Agent {
  const epoch = new Date(0).toISOString();
  return {
    id: 'agt_draft',
    slug: 'draft',
    name: 'draft',
    description: '',
    backend: 'chat',
    is_subagent: false,
    owner_id: ownerId,
    visibility: 'private',
    config,
    status: 'draft',
    delegatable: false,
    delegation_brief: null,
    is_default: false,
    deleted_at: null,
    created_at: epoch,
    updated_at: epoch,
  };
}
