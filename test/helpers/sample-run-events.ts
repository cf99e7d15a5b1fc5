import {
  storedRunEvent,
  type RunEvent,
  type RunEventBody,
  type RunEventDraft,
  type RunEventType,
} from '../../src/core/records/run-event.js';
import type { RunEventLineage } from '../../src/core/records/run-event-payloads.js';

/** A valid body of each event type, for tests that need an event and not what it says. */
export const SAMPLE_BODIES: { [K in RunEventType]: RunEventBody<K> } = {
  metadata: {
    request_id: 'req_sample',
    agent_id: 'agt_sample',
    agent_slug: 'sample',
    user_id: 'usr_sample',
    run_type: 'chat',
    source: 'test',
    channel: 'api',
    model: 'scripted:sample',
    attempt: 1,
    created_by_run_id: null,
    subagent_slug: null,
    usage: null,
  },
  message_delta: { text: 'text' },
  tool_call: { step: 1, tool_call_id: 'call_sample', name: 'sample_tool', args: {} },
  tool_result: { step: 1, tool_call_id: 'call_sample', name: 'sample_tool', output: 'ok', is_error: false },
  step: { step: 1, tool_calls: 0 },
  subagent_update: {
    run_id: 'run_child',
    kind: 'subagent',
    slug: 'child',
    name: 'child',
    status: 'running',
    child_thread_id: 'thr_child',
    child_conversation_id: 'cnv_child',
    parent_tool_call_id: null,
    description: 'a task',
    error: null,
    output: null,
  },
  approval_required: { tool_call_id: 'call_sample', name: 'sample_tool', args: {} },
  error: { error: { type: 'internal', message: 'failed' } },
  end: { status: 'completed', output: null, error: null, usage: null },
  question_required: { tool_call_id: 'call_sample', questions: [{ question: 'Which one?' }] },
  artifact: {
    tool_call_id: 'call_sample',
    artifact: {
      id: 'art_sample',
      conversation_id: 'cnv_sample',
      run_id: 'run_sample',
      path: 'report.md',
      title: null,
      size: 1,
      content_type: 'text/markdown',
      created_at: '2026-01-01T00:00:00.000Z',
    },
  },
  model_retry: {
    step: 1,
    attempt: 1,
    max_retries: 3,
    reason: 'rate_limited',
    wait_ms: 10,
    model: 'scripted:sample',
    discarded_chars: 0,
  },
  model_fallback: { step: 1, from: 'scripted:a', to: 'scripted:b', reason: 'overloaded', discarded_chars: 0 },
  context_compacted: {
    step: 3,
    trigger: 'threshold',
    tokens_before: 3400,
    tokens_after: 1200,
    messages_summarised: 12,
    model: 'scripted:a',
    context_window: 4096,
  },
  verification: {
    run_id: 'run_child',
    kind: 'subagent',
    verdict: 'satisfied',
    reasons: ['every criterion is met'],
    evidence: {
      run_id: 'run_child',
      status: 'completed',
      model_calls: 1,
      tokens: { input: 10, output: 5, total: 15 },
      tool_calls: {},
      tool_calls_total: 0,
      tool_calls_failed: 0,
      files_written: [],
      artifacts: [],
      children: [],
      flags: ['no_tool_calls'],
    },
    revision: 0,
    grader_run_id: 'run_grader',
    final: true,
  },
};

export const SAMPLE_LINEAGE: RunEventLineage = {
  root_run_id: 'run_sample',
  parent_run_id: null,
  parent_tool_call_id: null,
  depth: 0,
};

/** A valid body of `type` with `fields` over it. */
export function sampleBody<K extends RunEventType>(
  type: K,
  fields: Partial<RunEventBody<K>> = {},
): RunEventBody<K> {
  return { ...SAMPLE_BODIES[type], ...fields };
}

/** An event to emit: a valid body of `type` with `fields` over it. */
export function sampleDraft<K extends RunEventType>(
  type: K,
  fields: Partial<RunEventBody<K>> = {},
): RunEventDraft {
  return storedRunEvent({ run_id: '', seq: 0, type, payload: sampleBody(type, fields), created_at: '' });
}

/** A stored event of `type`: the sample lineage and body, with `fields` over the payload. */
export function sampleEvent<K extends RunEventType>(
  type: K,
  fields: Partial<RunEventBody<K>> = {},
  at: { run_id?: string; seq?: number; created_at?: string } = {},
): RunEvent {
  return storedRunEvent({
    run_id: at.run_id ?? 'run_sample',
    seq: at.seq ?? 1,
    type,
    payload: { ...SAMPLE_LINEAGE, ...sampleBody(type, fields) },
    created_at: at.created_at ?? '2026-01-01T00:00:00.000Z',
  });
}
