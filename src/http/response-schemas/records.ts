import { z } from 'zod';
import {
  AGENT_BACKENDS,
  AGENT_VISIBILITIES,
  EXPERT_STATUSES,
  TOOL_APPROVAL_MODES,
} from '../../core/records/agent.js';
import {
  RUN_CHANNELS,
  RUN_STATUSES,
  RUN_TYPES,
  APPROVAL_SCOPES,
  APPROVAL_STATUSES,
  HUMAN_INPUT_KINDS,
} from '../../core/records/run.js';
import { RUN_EVENT_TYPES } from '../../core/records/run-event.js';

/**
 * Response schemas of the records the API returns (SPEC §7, issue 17): what `/api/openapi.json` documents
 * for each success body. Under test every JSON success response is checked against its route's schema
 * (`checkResponses`), so the document cannot drift from what handlers send. Objects are open to added
 * fields (a newer server may send more), never to missing or retyped ones.
 */
/** Named response schemas: each becomes one entry of the document's `components.schemas`. */
export const RESPONSE_SCHEMAS = z.registry<{ id: string }>();

const timestamp = z.string().describe('ISO 8601 time');
const nullableTimestamp = timestamp.nullable();

export const tokenUsageSchema = z
  .strictObject({
    input_tokens: z.number(),
    output_tokens: z.number(),
    total_tokens: z.number(),
    model_calls: z.number().describe('Calls the provider answered, over every attempt of the run'),
    aborted_model_calls: z
      .number()
      .describe(
        'Calls that never answered (cancelled, failed, lost with their worker); their tokens are unknown',
      ),
    by_model: z
      .record(
        z.string(),
        z.strictObject({ input_tokens: z.number(), output_tokens: z.number(), model_calls: z.number() }),
      )
      .optional()
      .describe('Per model spec, once a fallback model answered a call: which models ran and what each used'),
  })
  .describe('Usage over every attempt of the run; live while it runs')
  .register(RESPONSE_SCHEMAS, { id: 'TokenUsage' });

export const workerLostSchema = z
  .strictObject({
    since: timestamp.describe('When the lease expired'),
    takeover_by: timestamp.describe('When a lease reconciler takes the run over, if a worker process is up'),
    then: z.enum(['resume', 'fail', 'cancel']).describe('What the takeover does'),
  })
  .describe('Set while an expired lease holds the run: no process works on it')
  .register(RESPONSE_SCHEMAS, { id: 'WorkerLost' });

/** A model call's usage, stored with the turn it produced. */
const callUsageSchema = z.strictObject({ input_tokens: z.number(), output_tokens: z.number() });

export const runErrorSchema = z.looseObject({ type: z.string(), message: z.string() });

export const runSchema = z
  .strictObject({
    id: z.string(),
    thread_id: z.string(),
    conversation_id: z.string(),
    agent_id: z.string(),
    user_id: z.string(),
    run_type: z.enum(RUN_TYPES),
    source: z.string(),
    channel: z.enum(RUN_CHANNELS),
    status: z.enum(RUN_STATUSES),
    request_id: z.string(),
    created_by_run_id: z.string().nullable(),
    root_run_id: z.string(),
    depth: z.number().int(),
    subagent_thread_relation_id: z.string().nullable(),
    runtime_scope_id: z.string(),
    tool_approval_mode: z.enum(TOOL_APPROVAL_MODES),
    model_spec: z.string(),
    input: z.looseObject({ message: z.string(), parent_tool_call_id: z.string().optional() }),
    output: z.string().nullable(),
    error: runErrorSchema.nullable(),
    usage: tokenUsageSchema.nullable(),
    worker_id: z.string().nullable(),
    lease_expires_at: nullableTimestamp,
    worker_lost: workerLostSchema.nullable(),
    attempt: z.number().int(),
    created_at: timestamp,
    started_at: nullableTimestamp,
    finished_at: nullableTimestamp,
    updated_at: timestamp,
  })
  .register(RESPONSE_SCHEMAS, { id: 'Run' });

export const agentSchema = z
  .looseObject({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    backend: z.enum(AGENT_BACKENDS),
    is_subagent: z.boolean(),
    owner_id: z.string(),
    visibility: z.enum(AGENT_VISIBILITIES),
    config: z.record(z.string(), z.unknown()).describe('AgentConfig; secrets come back redacted'),
    status: z.enum(EXPERT_STATUSES),
    delegatable: z.boolean(),
    delegation_brief: z.string().nullable(),
    is_default: z.boolean(),
    deleted_at: nullableTimestamp,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .register(RESPONSE_SCHEMAS, { id: 'Agent' });

export const conversationSchema = z
  .looseObject({
    id: z.string(),
    user_id: z.string(),
    agent_id: z.string(),
    thread_id: z.string(),
    project_id: z.string(),
    status: z.string(),
    title: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .register(RESPONSE_SCHEMAS, { id: 'Conversation' });

export const threadMessageSchema = z
  .looseObject({
    thread_id: z.string(),
    seq: z.number().int(),
    run_id: z.string().nullable(),
    step: z.number().int(),
    message: z.looseObject({ role: z.string(), content: z.unknown() }).describe('An AI SDK ModelMessage'),
    created_at: timestamp,
    usage: callUsageSchema.nullable().describe("A model's turn: the usage of the call that produced it"),
  })
  .register(RESPONSE_SCHEMAS, { id: 'ThreadMessage' });

export const runEventSchema = z
  .looseObject({
    run_id: z.string(),
    seq: z.number().int(),
    type: z.enum(RUN_EVENT_TYPES),
    payload: z
      .record(z.string(), z.unknown())
      .describe(
        'By type; e.g. `model_retry`: {step, attempt, max_retries, reason, status?, wait_ms, model, discarded_chars} ' +
          '(drop the last `discarded_chars` characters of the text shown), `model_fallback`: {step, from, to, ' +
          'reason, status?, discarded_chars}',
      ),
    created_at: timestamp,
  })
  .register(RESPONSE_SCHEMAS, { id: 'RunEvent' });

export const approvalSchema = z
  .looseObject({
    run_id: z.string(),
    tool_call_id: z.string(),
    tool_name: z.string(),
    args: z.unknown(),
    status: z.enum(APPROVAL_STATUSES),
    comment: z.string().nullable(),
    decided_by: z.string().nullable(),
    created_at: timestamp,
    decided_at: nullableTimestamp,
    kind: z.enum(HUMAN_INPUT_KINDS),
    answers: z.array(z.string()).nullable(),
    scope: z.enum(APPROVAL_SCOPES).describe('"run" when approved for the rest of the run'),
  })
  .register(RESPONSE_SCHEMAS, { id: 'ToolApproval' });

export const userSchema = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    role: z.string(),
    delegation_policy: z.string(),
    delegation_whitelist: z.array(z.string()),
    created_at: timestamp,
  })
  .register(RESPONSE_SCHEMAS, { id: 'User' });

export const projectSchema = z
  .looseObject({
    id: z.string(),
    user_id: z.string(),
    name: z.string(),
    workdir: z
      .string()
      .nullable()
      .describe(
        "The project's workdir relative to the server's data dir (never a host path); null when elsewhere",
      ),
    created_at: timestamp,
  })
  .register(RESPONSE_SCHEMAS, { id: 'Project' });

export const attachmentSchema = z
  .looseObject({
    id: z.string(),
    conversation_id: z.string(),
    name: z.string(),
    path: z.string(),
    size: z.number(),
    content_type: z.string(),
    created_at: timestamp,
  })
  .register(RESPONSE_SCHEMAS, { id: 'Attachment' });

export const budgetViewSchema = z
  .looseObject({
    limits: z.record(z.string(), z.number()),
    deadline_at: nullableTimestamp,
    used: z.record(z.string(), z.number()),
    carved: z.record(z.string(), z.number()),
    remaining: z.record(z.string(), z.number()),
  })
  .register(RESPONSE_SCHEMAS, { id: 'BudgetView' });

/** An open object: documented as such where the shape is large and described in the route's text. */
export const openObject = (id: string, description: string) =>
  z.record(z.string(), z.unknown()).describe(description).register(RESPONSE_SCHEMAS, { id });
