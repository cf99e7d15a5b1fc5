import type { ForeignIdAttempt } from './foreign-id-attempt.js';

/** A subagent id; Alice's conversation has none, and Bob must not learn whether it would. */
export const FOREIGN_SUBAGENT_ID = 'conv_subagent';

const cancel = () => ({ events: [{ type: 'agent.session.input.cancel' }] });

/** OpenAI's Agents API shape (`/v1/agents…`): Alice's agent, conversation (session), run (turn) and artifact. */
export const AGENTS_API_ATTEMPTS: ForeignIdAttempt[] = [
  ...(['GET', 'DELETE'] as const).map((method): ForeignIdAttempt => ({
    name: `Agents API ${method} a foreign agent`,
    method,
    url: ({ mine }) => `/v1/agents/${mine.agent.id}`,
    code: 'agent_not_found',
  })),
  {
    name: 'Agents API update of a foreign agent',
    method: 'POST',
    url: ({ mine }) => `/v1/agents/${mine.agent.id}`,
    body: () => ({ name: 'hijacked' }),
    code: 'agent_not_found',
  },
  {
    name: 'Agents API session with a foreign agent',
    method: 'POST',
    url: () => '/v1/agents/sessions',
    body: ({ mine }) => ({ agent_id: mine.agent.id, environment: { type: 'none' }, input: 'hijack' }),
    code: 'agent_not_found',
  },
  ...(['GET', 'DELETE'] as const).map((method): ForeignIdAttempt => ({
    name: `Agents API ${method} a foreign session`,
    method,
    url: ({ mine }) => `/v1/agents/sessions/${mine.conversation.id}`,
    code: 'session_not_found',
  })),
  {
    name: 'Agents API metadata of a foreign session',
    method: 'POST',
    url: ({ mine }) => `/v1/agents/sessions/${mine.conversation.id}`,
    body: () => ({ metadata: { hijacked: 'yes' } }),
    code: 'session_not_found',
  },
  {
    name: 'Agents API input into a foreign session',
    method: 'POST',
    url: ({ mine }) => `/v1/agents/sessions/${mine.conversation.id}/events`,
    body: cancel,
    code: 'session_not_found',
  },
  ...[
    'events',
    'turns',
    'turns/{turn}',
    'turns/{turn}/items',
    'items',
    'subagents',
    'subagents/{subagent}',
    'subagents/{subagent}/items',
    'subagents/{subagent}/turns',
    'subagents/{subagent}/turns/{turn}',
    'subagents/{subagent}/turns/{turn}/items',
    'artifacts',
    'artifacts/{artifact}',
    'artifacts/{artifact}/content',
  ].map((tail): ForeignIdAttempt => ({
    name: `Agents API GET ${tail} of a foreign session`,
    method: 'GET',
    url: ({ mine }) =>
      `/v1/agents/sessions/${mine.conversation.id}/${tail
        .replace('{turn}', mine.runId)
        .replace('{subagent}', FOREIGN_SUBAGENT_ID)
        .replace('{artifact}', mine.artifactId)}`,
    code: 'session_not_found',
  })),
  {
    name: 'Agents API delete of an artifact of a foreign session',
    method: 'DELETE',
    url: ({ mine }) => `/v1/agents/sessions/${mine.conversation.id}/artifacts/${mine.artifactId}`,
    code: 'session_not_found',
  },
  // Through a session of Bob's own: Alice's turn and artifact ids are not his session's.
  {
    name: "Agents API Alice's turn in Bob's session",
    method: 'GET',
    url: ({ mine, bobsConversation }) =>
      `/v1/agents/sessions/${bobsConversation.id}/turns/${mine.runId}/items`,
    code: 'turn_not_found',
  },
  {
    name: "Agents API Alice's artifact in Bob's session",
    method: 'DELETE',
    url: ({ mine, bobsConversation }) =>
      `/v1/agents/sessions/${bobsConversation.id}/artifacts/${mine.artifactId}`,
    code: 'artifact_not_found',
  },
];
