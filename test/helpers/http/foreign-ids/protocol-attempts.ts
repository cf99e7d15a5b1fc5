import type { ForeignIdAttempt } from './foreign-id-attempt.js';
import type { ForeignIdsWorld } from './use-foreign-ids-world.js';

/** A2A 1.0 method names need the version header (a request without one is read as 0.3). */
const A2A_V1 = { 'A2A-Version': '1.0' };

/** A2A `SendMessage` to the public bot, its user message naming one of Alice's tasks or contexts. */
function sendToPublicBot(
  name: string,
  message: (mine: ForeignIdsWorld['mine']) => Record<string, unknown>,
  code: -32001 | -32602,
): ForeignIdAttempt {
  return {
    name,
    method: 'POST',
    url: () => '/a2a/public-bot',
    headers: A2A_V1,
    body: ({ mine }) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { role: 'ROLE_USER', ...message(mine) } },
    }),
    code: `JSON-RPC ${code}`,
    status: 200,
    answer: { error: { code } },
  };
}

/** Delegation, A2A and the OpenAI-compatible API: foreign ids in the bodies of the protocols. */
export const PROTOCOL_ATTEMPTS: ForeignIdAttempt[] = [
  {
    name: 'delegate from a foreign conversation',
    method: 'POST',
    url: () => '/api/delegate',
    body: ({ mine }) => ({ expert: 'public-bot', task: 'x', conversation_id: mine.conversation.id }),
    code: 'conversation_not_found',
  },
  {
    name: 'delegate under a foreign run',
    method: 'POST',
    url: () => '/api/delegate',
    body: ({ mine }) => ({ expert: 'public-bot', task: 'x', parent_run_id: mine.runId }),
    code: 'run_not_found',
  },
  {
    name: 'delegate to a foreign expert',
    method: 'POST',
    url: () => '/api/delegate',
    body: ({ mine }) => ({ expert: mine.agent.id, task: 'x' }),
    code: 'HTTP 200 status failed',
    status: 200,
    answer: { status: 'failed', run_id: null, error: 'Expert not found or access denied' },
  },
  {
    name: 'A2A card of a foreign expert',
    method: 'GET',
    url: () => '/a2a/main/.well-known/agent-card.json',
    code: 'agent_not_found',
  },
  {
    name: 'A2A call to a foreign expert',
    method: 'POST',
    url: ({ mine }) => `/a2a/${mine.agent.id}`,
    body: ({ mine }) => ({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: mine.runId } }),
    code: 'agent_not_found',
  },
  // JSON-RPC errors travel with HTTP 200 (A2A §9.5): a foreign task is TaskNotFound, a foreign context refused.
  ...(['GetTask', 'CancelTask', 'SubscribeToTask'] as const).map((method): ForeignIdAttempt => ({
    name: `A2A ${method} on a foreign task`,
    method: 'POST',
    url: () => '/a2a/public-bot',
    headers: A2A_V1,
    body: ({ mine }) => ({ jsonrpc: '2.0', id: 1, method, params: { id: mine.runId } }),
    code: 'JSON-RPC -32001',
    status: 200,
    answer: { error: { code: -32001 } },
  })),
  sendToPublicBot(
    'A2A answer to a foreign task',
    (mine) => ({ messageId: 'm0', parts: [{ data: { approve: true } }], taskId: mine.runId }),
    -32001,
  ),
  sendToPublicBot(
    'A2A message into a foreign context',
    (mine) => ({ messageId: 'm1', parts: [{ text: 'hijack' }], contextId: mine.conversation.id }),
    -32602,
  ),
  {
    name: 'AG-UI run of a foreign agent',
    method: 'POST',
    url: ({ mine }) => `/ag-ui/${mine.agent.id}`,
    body: () => ({ threadId: 't-1', runId: 'r-1', messages: [{ id: 'm', role: 'user', content: 'hi' }] }),
    code: 'agent_not_found',
  },
  {
    name: 'AG-UI resume in a foreign thread',
    method: 'POST',
    url: () => '/ag-ui/public-bot',
    body: ({ mine }) => ({
      threadId: mine.conversation.id,
      runId: 'r-2',
      messages: [],
      resume: [{ interruptId: 'call-1', status: 'resolved', payload: { approve: true } }],
    }),
    code: 'run_not_waiting',
    status: 409,
  },
  {
    name: 'OpenAI-compatible model of another user',
    method: 'GET',
    url: () => '/v1/models/main',
    code: 'agent_not_found',
  },
  {
    name: 'OpenAI-compatible completion with a foreign agent',
    method: 'POST',
    url: () => '/v1/chat/completions',
    body: () => ({ model: 'main', messages: [{ role: 'user', content: 'hijack' }] }),
    code: 'agent_not_found',
  },
  {
    name: 'OpenAI-compatible completion in a foreign conversation',
    method: 'POST',
    url: () => '/v1/chat/completions',
    body: ({ mine }) => ({
      model: 'public-bot',
      conversation_id: mine.conversation.id,
      messages: [{ role: 'user', content: 'hijack' }],
    }),
    code: 'conversation_not_found',
  },
];
