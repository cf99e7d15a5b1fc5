import type { ForeignIdAttempt } from './foreign-id-attempt.js';

/** Runs: results, control, approvals, questions, events, traces and the run list filters. */
export const RUN_ATTEMPTS: ForeignIdAttempt[] = [
  {
    name: 'get run',
    method: 'GET',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}`,
    code: 'run_not_found',
  },
  {
    name: 'run result',
    method: 'GET',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/result`,
    code: 'run_not_found',
  },
  {
    name: 'cancel run',
    method: 'POST',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/cancel`,
    code: 'run_not_found',
  },
  {
    name: 'await run',
    method: 'GET',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/await?timeout_ms=10`,
    code: 'run_not_found',
  },
  {
    name: 'run tree',
    method: 'GET',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/tree`,
    code: 'run_not_found',
  },
  {
    name: 'list approvals',
    method: 'GET',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/approvals`,
    code: 'run_not_found',
  },
  {
    name: 'decide approval',
    method: 'POST',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/approvals/call-1`,
    body: () => ({ decision: 'approve' }),
    code: 'run_not_found',
  },
  {
    name: 'approve for the rest of the run',
    method: 'POST',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/approvals/call-1`,
    body: () => ({ decision: 'approve', scope: 'run' }),
    code: 'run_not_found',
  },
  {
    name: 'run events',
    method: 'GET',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/events`,
    code: 'run_not_found',
  },
  {
    name: 'run trace',
    method: 'GET',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/trace`,
    code: 'run_not_found',
  },
  {
    name: 'inspect a model call',
    method: 'GET',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/steps/1`,
    code: 'run_not_found',
  },
  {
    name: 'list runs of a foreign conversation',
    method: 'GET',
    url: ({ mine }) => `/api/agent/runs?conversation_id=${mine.conversation.id}`,
    code: 'conversation_not_found',
  },
  {
    name: 'list runs of a foreign user',
    method: 'GET',
    url: ({ alice }) => `/api/agent/runs?user_id=${alice.user.id}`,
    code: 'HTTP 200 nothing listed',
    status: 200,
    answer: { runs: [], next_cursor: null },
  },
  {
    name: 'list runs by a foreign agent',
    method: 'GET',
    url: ({ mine }) => `/api/agent/runs?agent=${mine.agent.id}`,
    code: 'HTTP 200 nothing listed',
    status: 200,
    answer: { runs: [], next_cursor: null },
  },
  {
    name: 'list questions',
    method: 'GET',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/questions`,
    code: 'run_not_found',
  },
  {
    name: 'answer a question',
    method: 'POST',
    url: ({ mine }) => `/api/agent/runs/${mine.runId}/answers/call-1`,
    body: () => ({ answers: ['hijacked'] }),
    code: 'run_not_found',
  },
];
