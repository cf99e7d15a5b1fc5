import { z } from 'zod';
import { userQuestionSchema } from '../questions/user-questions.js';
import { refusalSchema } from './refusal.js';
import { RUN_CHANNELS, RUN_STATUSES, RUN_TYPES } from './run.js';
import { runErrorRecord as runErrorSchema, tokenUsageRecord as tokenUsageSchema } from './run.js';
import { callUsageSchema } from './call-usage-schema.js';
import { evidenceSchema } from '../verification/evidence.js';
import { remoteReportSchema } from '../verification/remote-evidence.js';
import { VERDICTS } from '../verification/verification.js';

/**
 * The payload of each run event type, declared once (docs/runs.md#events): the TypeScript types of the
 * `RunEvent` union and the OpenAPI document's event schema are both made from these. The bodies leave out
 * the lineage fields every event carries (`runEventLineageSchema`), which the emitter adds.
 */
export const runEventLineageSchema = z.strictObject({
  root_run_id: z.string(),
  parent_run_id: z.string().nullable().describe("The run's creator; null for a root"),
  parent_tool_call_id: z.string().nullable().describe("The creator's call that started it"),
  depth: z.number().int(),
});
export type RunEventLineage = z.infer<typeof runEventLineageSchema>;

const step = z.number().int().describe('The model turn the event belongs to');
const toolCallId = z.string();
/** A model's retry or fallback's `reason`, e.g. `rate_limited`, `overloaded`, `stream_cut`. */
const failureReason = z
  .string()
  .describe('Why the last attempt failed (rate_limited, overloaded, stream_cut, …)');
const discardedChars = z
  .number()
  .int()
  .describe('Characters the failed attempt streamed: drop that many from the end of the text shown');

/** A child run as its parent's status panel shows it: the `subagent_update` payload and the panel's list entry. */
export const childCardFields = {
  run_id: z.string().describe('The child run'),
  kind: z.enum(['subagent', 'delegation', 'grader']),
  slug: z.string().nullable(),
  name: z.string().nullable(),
  status: z.enum(RUN_STATUSES),
  child_thread_id: z.string(),
  child_conversation_id: z.string(),
  parent_tool_call_id: z.string().nullable().describe("The parent's call that started the child"),
};

/** Each type's own fields, keyed by type. */
export const RUN_EVENT_BODIES = {
  metadata: z.strictObject({
    request_id: z.string(),
    agent_id: z.string(),
    agent_slug: z.string(),
    user_id: z.string(),
    run_type: z.enum(RUN_TYPES),
    source: z.string(),
    channel: z.enum(RUN_CHANNELS),
    model: z.string().describe("The model's label"),
    attempt: z.number().int().describe('1, then 2, 3… for each resume'),
    created_by_run_id: z.string().nullable(),
    subagent_slug: z.string().nullable(),
    usage: tokenUsageSchema.nullable().describe('What earlier attempts spent'),
  }),
  message_delta: z.strictObject({ text: z.string() }),
  tool_call: z.strictObject({
    step,
    tool_call_id: toolCallId,
    name: z.string(),
    args: z.unknown(),
    model_usage: callUsageSchema
      .optional()
      .describe("The first call of a turn: the usage of the model's call"),
  }),
  tool_result: z.strictObject({
    step,
    tool_call_id: toolCallId,
    name: z.string(),
    output: z.unknown().optional().describe("What the model reads; absent on a remote expert's task"),
    is_error: z.boolean(),
    closed_by_run_end: z.literal(true).optional().describe('The run ended with the call open'),
    result: z.string().optional().describe("A remote expert's task that failed: why"),
    remote_evidence: remoteReportSchema
      .optional()
      .describe("A remote expert's task: what it exposed and what its server reported (its evidence)"),
    refusal: refusalSchema.optional().describe('A refused call: the refusal as data'),
    outcome: z
      .literal('unknown')
      .optional()
      .describe(
        'An external call that started before its worker stopped: not run again, whether it took effect is unknown',
      ),
  }),
  step: z.strictObject({
    step,
    tool_calls: z.number().int(),
    finish_reason: z.string().optional(),
    usage: callUsageSchema.optional(),
    model: z.string().optional().describe('The fallback model that answered, if one did'),
    resumed: z.literal(true).optional().describe('A step whose calls a resumed run ran again'),
  }),
  subagent_update: z.strictObject({
    ...childCardFields,
    description: z.string().describe("The child's task, first 500 characters"),
    error: runErrorSchema.nullable(),
    output: z.string().nullable().describe('First 500 characters'),
  }),
  approval_required: z.strictObject({ tool_call_id: toolCallId, name: z.string(), args: z.unknown() }),
  error: z.strictObject({ error: runErrorSchema }),
  end: z.strictObject({
    status: z.enum(RUN_STATUSES),
    output: z.string().nullable(),
    error: runErrorSchema.nullable(),
    usage: tokenUsageSchema.nullable(),
  }),
  question_required: z.strictObject({ tool_call_id: toolCallId, questions: z.array(userQuestionSchema) }),
  artifact: z.strictObject({
    tool_call_id: toolCallId,
    artifact: z.strictObject({
      id: z.string(),
      conversation_id: z.string(),
      run_id: z.string(),
      path: z.string(),
      title: z.string().nullable(),
      size: z.number(),
      content_type: z.string(),
      created_at: z.string(),
    }),
  }),
  model_retry: z.strictObject({
    step,
    attempt: z.number().int().describe('The retry about to be made: 1 for the first'),
    max_retries: z.number().int(),
    reason: failureReason,
    status: z.number().int().optional().describe("The provider's HTTP status"),
    wait_ms: z.number(),
    model: z.string().describe('The model spec being retried'),
    discarded_chars: discardedChars,
  }),
  model_fallback: z.strictObject({
    step,
    from: z.string(),
    to: z.string(),
    reason: failureReason,
    status: z.number().int().optional(),
    discarded_chars: discardedChars,
  }),
  context_compacted: z.strictObject({
    step,
    trigger: z
      .enum(['threshold', 'overflow'])
      .describe('Why: the prompt passed the compaction threshold, or the provider refused it as too long'),
    tokens_before: z.number().int().describe('Prompt tokens before (system prompt and tools included)'),
    tokens_after: z.number().int().describe('Prompt tokens after'),
    messages_summarised: z
      .number()
      .int()
      .describe('Messages of the prompt the summary replaces (an earlier summary counts as one)'),
    model: z.string().describe('The model spec that wrote the summary'),
    context_window: z.number().int().describe('The window the prompt is kept under, in tokens'),
  }),
  verification: z
    .strictObject({
      run_id: z.string().describe('The judged child run'),
      kind: z.enum(['subagent', 'delegation']),
      verdict: z.enum(VERDICTS),
      reasons: z.array(z.string()),
      evidence: evidenceSchema,
      revision: z.number().int().describe('Revisions asked before this verdict: 0 for the first answer'),
      grader_run_id: z.string().nullable().describe('The grader run; null when no grader ran'),
      final: z.boolean().describe('False when a revision follows this verdict'),
    })
    .describe('A verdict on a child result (docs/verified-delegation.md)'),
} as const;
