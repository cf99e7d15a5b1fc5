import type { Run } from '../../../src/core/records/run.js';

/** A finished top-level chat run; tests override what they look at. */
export function fakeRun(overrides: Partial<Run> = {}): Run {
  return {
    id: 'run-1',
    thread_id: 'thr_1',
    conversation_id: 'cnv_1',
    agent_id: 'agt_1',
    user_id: 'usr_1',
    run_type: 'chat',
    source: 'chat',
    channel: 'api',
    status: 'completed',
    request_id: 'req-1',
    created_by_run_id: null,
    root_run_id: 'run-1',
    depth: 0,
    subagent_thread_relation_id: null,
    runtime_scope_id: 'thr_1',
    tool_approval_mode: 'default',
    model_spec: 'scripted:demo',
    input: { message: 'the question' },
    output: 'the answer',
    error: null,
    usage: null,
    worker_id: null,
    lease_expires_at: null,
    attempt: 1,
    created_at: '2030-01-01T00:00:00.000Z',
    started_at: '2030-01-01T00:00:01.000Z',
    finished_at: '2030-01-01T00:00:02.000Z',
    updated_at: '2030-01-01T00:00:02.000Z',
    forked_from: null,
    ...overrides,
  };
}
