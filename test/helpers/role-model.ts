import type { FakeModelResponse, RecordedRequest } from './models/fake-model-server.js';

/**
 * A fake model that answers by role: each test agent's system prompt carries `ROLE:<name>`, and a child of
 * the built-in general-purpose subagent (which plays its parent's prompt) is told apart by a task that starts
 * with `CHILD`.
 */
export function roleOf(request: RecordedRequest): string {
  const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
  const system = messages.find((message) => message.role === 'system');
  const prompt = typeof system?.content === 'string' ? system.content : JSON.stringify(system?.content ?? '');
  const user = messages.find((message) => message.role === 'user');
  const task = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  if (task.startsWith('CHILD')) return 'child';
  return /ROLE:(\w+)/.exec(prompt)?.[1] ?? 'unknown';
}

/** How many model turns the run had before this request. */
export function turnOf(request: RecordedRequest): number {
  const messages = (request.body.messages ?? []) as { role: string }[];
  return messages.filter((message) => message.role === 'assistant').length;
}

/** A model that never stops: every turn calls a tool, so each run keeps asking the model. */
export function busyTurn(delayMs: number): FakeModelResponse {
  return { delayMs, toolCalls: [{ name: 'no_such_tool', args: {} }] };
}

/**
 * The stop-guarantee team: `boss` starts `children` children on its first turn, alternately a general-purpose
 * subagent and a delegation to `worker`; each worker delegates to `helper`. Leaves then sit in a model call
 * that answers only after a minute, so when a cancel comes every run of the tree has one request at the model.
 */
export function teamTurn(role: string, turn: number, children: number): FakeModelResponse {
  if (role === 'boss' && turn === 0) {
    return {
      toolCalls: Array.from({ length: children }, (_, index) =>
        index % 2 === 0
          ? { name: 'task', args: { subagent_slug: 'general-purpose', description: `CHILD ${index}` } }
          : { name: 'delegate', args: { expert: 'worker', task: `Work item ${index}` } },
      ),
    };
  }
  if (role === 'worker' && turn === 0) {
    return { toolCalls: [{ name: 'delegate', args: { expert: 'helper', task: 'Help with it' } }] };
  }
  return { delayMs: 60_000, text: 'too late' };
}
