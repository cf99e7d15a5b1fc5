import type { ForeignIdAttempt } from './foreign-id-attempt.js';

/** Agents (by id, slug, grants, publishing), plus the token and project ids a member could aim at them. */
export const AGENT_ATTEMPTS: ForeignIdAttempt[] = [
  {
    name: 'revoke token',
    method: 'DELETE',
    url: ({ mine }) => `/api/me/tokens/${mine.tokenId}`,
    code: 'token_not_found',
  },
  {
    name: 'get agent by id',
    method: 'GET',
    url: ({ mine }) => `/api/agent/${mine.agent.id}`,
    code: 'agent_not_found',
  },
  { name: 'get agent by slug', method: 'GET', url: () => '/api/agent/main', code: 'agent_not_found' },
  {
    name: 'get shared agent',
    method: 'GET',
    url: ({ mine }) => `/api/agent/${mine.shared.id}`,
    code: 'agent_not_found',
  },
  {
    name: 'agent build report',
    method: 'GET',
    url: ({ mine }) => `/api/agent/${mine.agent.id}/build-report`,
    code: 'agent_not_found',
  },
  {
    name: 'draft build report with stored secrets',
    method: 'POST',
    url: () => '/api/agent/build-report',
    body: ({ mine }) => ({ config: {}, agent_id: mine.agent.id }),
    code: 'agent_not_found',
  },
  {
    name: 'update agent',
    method: 'PUT',
    url: ({ mine }) => `/api/agent/${mine.agent.id}`,
    body: () => ({ name: 'Pwned' }),
    code: 'agent_not_found',
  },
  {
    name: 'delete agent',
    method: 'DELETE',
    url: ({ mine }) => `/api/agent/${mine.agent.id}`,
    code: 'agent_not_found',
  },
  // Admin-only: every member gets 403 whatever the id, so it reveals nothing either.
  {
    name: 'set default',
    method: 'POST',
    url: ({ mine }) => `/api/agent/${mine.agent.id}/set_default`,
    code: 'forbidden',
    status: 403,
  },
  {
    name: 'chat with agent',
    method: 'POST',
    url: () => '/api/conversations',
    body: () => ({ agent_id: 'main' }),
    code: 'agent_not_found',
  },
  {
    name: 'use project',
    method: 'POST',
    url: () => '/api/conversations',
    body: ({ mine }) => ({ agent_id: 'public-bot', project_id: mine.project.id }),
    code: 'project_not_found',
  },
  {
    name: 'publish agent',
    method: 'POST',
    url: ({ mine }) => `/api/agent/${mine.agent.id}/publish`,
    code: 'agent_not_found',
  },
  {
    name: 'unpublish agent',
    method: 'POST',
    url: ({ mine }) => `/api/agent/${mine.agent.id}/unpublish`,
    code: 'agent_not_found',
  },
  {
    name: 'list grants',
    method: 'GET',
    url: ({ mine }) => `/api/agent/${mine.shared.id}/grants`,
    code: 'agent_not_found',
  },
  {
    name: 'grant myself access',
    method: 'POST',
    url: ({ mine }) => `/api/agent/${mine.shared.id}/grants`,
    body: ({ bob }) => ({ user_id: bob.user.id, source: 'granted' }),
    code: 'agent_not_found',
  },
  {
    name: 'revoke the owner grant',
    method: 'DELETE',
    url: ({ mine, alice }) => `/api/agent/${mine.shared.id}/grants/${alice.user.id}`,
    code: 'agent_not_found',
  },
];
