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
import { runEventSchema as coreRunEventSchema } from '../../core/records/run-event.js';
import { runErrorSchema } from '../../core/records/run-error-schema.js';
import {
  callUsageSchema,
  tokenUsageSchema as coreTokenUsageSchema,
} from '../../core/records/token-usage-schema.js';
import { CONVERSATION_STATUSES } from '../../core/records/conversation.js';
import { DELEGATION_POLICIES, USER_ROLES } from '../../core/records/user.js';

/**
 * Response schemas of the records the API returns (SPEC §7, §11): what `/api/openapi.json` documents for
 * each success body. Under test every JSON success response is checked against its route's schema
 * (`checkResponses`), and the objects are closed (`additionalProperties: false`): a field a handler sends
 * that the document does not name fails the check, so the document names every field. A free-form map
 * (an agent's config, an event's payload, conversation metadata) says so in its description.
 */
/** Named response schemas: each becomes one entry of the document's `components.schemas`. */
export const RESPONSE_SCHEMAS = z.registry<{ id: string }>();

const timestamp = z.string().describe('ISO 8601 time');
const nullableTimestamp = timestamp.nullable();

// Declared in core, where the run events that carry it are (`end`, `metadata`): one schema, one component.
export const tokenUsageSchema = coreTokenUsageSchema.register(RESPONSE_SCHEMAS, { id: 'TokenUsage' });

export const workerLostSchema = z
  .strictObject({
    since: timestamp.describe('When the lease expired'),
    takeover_by: timestamp.describe('When a lease reconciler takes the run over, if a worker process is up'),
    then: z.enum(['resume', 'fail', 'cancel']).describe('What the takeover does'),
  })
  .describe('Set while an expired lease holds the run: no process works on it')
  .register(RESPONSE_SCHEMAS, { id: 'WorkerLost' });


export { runErrorSchema };

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
    input: z
      .strictObject({
        message: z.string(),
        parent_tool_call_id: z
          .string()
          .optional()
          .describe('The tool call of the parent that started this run'),
        attachments: z.array(z.string()).optional().describe('Attachment ids the message listed'),
        traceparent: z.string().optional().describe('W3C trace context the run continues'),
        caller: z
          .strictObject({ issuer: z.string(), subject: z.string(), name: z.string() })
          .optional()
          .describe('Who delegated this task, as another Troupe server vouched for it'),
        agent_slug: z.string().optional(),
        agent_name: z.string().optional(),
        subagent_slug: z.string().optional(),
        inline_subagent: z.string().optional().describe('The inline or built-in spec a subagent run plays'),
        expert_slug: z.string().optional(),
      })
      .describe('What started the run'),
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
  .strictObject({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    backend: z.enum(AGENT_BACKENDS),
    is_subagent: z.boolean(),
    owner_id: z.string(),
    visibility: z.enum(AGENT_VISIBILITIES),
    config: z
      .record(z.string(), z.unknown())
      .describe(
        'AgentConfig, as `POST /api/agent` takes it (a free-form map here); secrets come back redacted',
      ),
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
  .strictObject({
    id: z.string(),
    user_id: z.string(),
    agent_id: z.string(),
    thread_id: z.string(),
    project_id: z.string(),
    status: z.enum(CONVERSATION_STATUSES),
    title: z.string(),
    metadata: z
      .record(z.string(), z.unknown())
      .describe('Free-form: child conversations name their parent; an AG-UI thread its `ag_ui_thread_id`'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .register(RESPONSE_SCHEMAS, { id: 'Conversation' });

export const threadMessageSchema = z
  .strictObject({
    thread_id: z.string(),
    seq: z.number().int(),
    run_id: z.string().nullable(),
    step: z.number().int(),
    message: z
      .strictObject({
        role: z.enum(['system', 'user', 'assistant', 'tool']),
        content: z
          .unknown()
          .describe('A string, or parts (text, reasoning, image, file, tool-call, tool-result)'),
        providerOptions: z
          .record(z.string(), z.record(z.string(), z.unknown()))
          .optional()
          .describe("Per-provider options the model's provider attached (free-form by provider)"),
      })
      .describe("A message of the thread in Troupe's stored shape"),
    created_at: timestamp,
    usage: callUsageSchema.nullable().describe("A model's turn: the usage of the call that produced it"),
  })
  .register(RESPONSE_SCHEMAS, { id: 'ThreadMessage' });

/** Every event type with its payload, declared in core (`RUN_EVENT_BODIES`): the SSE route's `x-event-schema`. */
export const runEventSchema = coreRunEventSchema.register(RESPONSE_SCHEMAS, { id: 'RunEvent' });

export const approvalSchema = z
  .strictObject({
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
  .strictObject({
    id: z.string(),
    name: z.string(),
    role: z.enum(USER_ROLES),
    delegation_policy: z.enum(DELEGATION_POLICIES),
    delegation_whitelist: z.array(z.string()),
    created_at: timestamp,
  })
  .register(RESPONSE_SCHEMAS, { id: 'User' });

export const projectSchema = z
  .strictObject({
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
  .strictObject({
    id: z.string(),
    conversation_id: z.string(),
    user_id: z.string(),
    name: z.string(),
    path: z.string(),
    size: z.number(),
    content_type: z.string(),
    created_at: timestamp,
  })
  .register(RESPONSE_SCHEMAS, { id: 'Attachment' });

const budgetAmounts = z.strictObject({ tokens: z.number(), model_calls: z.number(), tool_calls: z.number() });

export const budgetViewSchema = z
  .strictObject({
    limits: z.strictObject({
      tokens: z.number().optional(),
      model_calls: z.number().optional(),
      tool_calls: z.number().optional(),
      wall_ms: z.number().optional(),
    }),
    deadline_at: nullableTimestamp,
    used: budgetAmounts,
    carved: budgetAmounts,
    remaining: budgetAmounts.partial(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'BudgetView' });
