import { z } from 'zod';
import { agentRecord } from '../../core/records/agent.js';
import { attachmentRecord } from '../../core/records/attachment.js';
import { conversationRecord } from '../../core/records/conversation.js';
import { projectRecord } from '../../core/records/project.js';
import { nullableTimestamp } from '../../core/records/record-fields.js';
import { runEventSchema as coreRunEventSchema } from '../../core/records/run-event.js';
import {
  runErrorRecord,
  runViewRecord,
  tokenUsageRecord,
  toolApprovalRecord,
  workerLostRecord,
} from '../../core/records/run.js';
import { threadMessageRecord } from '../../core/records/thread-message.js';
import { userRecord } from '../../core/records/user.js';

/**
 * Response schemas of the records the API returns (docs/interfaces.md, docs/interoperability.md): what `/api/openapi.json` documents for
 * each success body. Each is its core record's schema (docs/records-and-access.md#records-declared-once),
 * registered under its name, with the few fields the API shows otherwise replaced in place. Under test every JSON success response is checked against its route's schema
 * (`checkResponses`), and the objects are closed (`additionalProperties: false`): a field a handler sends
 * that the document does not name fails the check, so the document names every field. A free-form map
 * (an agent's config, an event's payload, conversation metadata) says so in its description.
 */
/** Named response schemas: each becomes one entry of the document's `components.schemas`. */
export const RESPONSE_SCHEMAS = z.registry<{ id: string }>();

export const tokenUsageSchema = tokenUsageRecord.register(RESPONSE_SCHEMAS, { id: 'TokenUsage' });

export const workerLostSchema = workerLostRecord.register(RESPONSE_SCHEMAS, { id: 'WorkerLost' });

export const runErrorSchema = runErrorRecord;

/** The run as stored, with `input` documented field by field (the record keeps it open). */
export const runSchema = runViewRecord
  .extend({
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
        agent_overrides: z
          .strictObject({ system_prompt: z.string().optional(), tools: z.array(z.string()).optional() })
          .optional()
          .describe("A fork's changes to its agent: its prompt, and the patterns its tools were narrowed to"),
        acceptance: z.string().optional().describe('Acceptance criteria the finished run is graded against'),
        task: z
          .string()
          .optional()
          .describe("A revision: the child's first task (its message is the reasons)"),
        revises_run_id: z.string().optional().describe('A revised delegation: the run it revises'),
        graded_run_id: z.string().optional().describe('A grader run: the child run it judges'),
        grader_attempt: z.number().int().optional().describe('A grader run: 0, or 1 for the retry'),
      })
      .describe('What started the run'),
  })
  .register(RESPONSE_SCHEMAS, { id: 'Run' });

export const agentSchema = agentRecord
  .extend({
    config: z
      .record(z.string(), z.unknown())
      .describe(
        'AgentConfig, as `POST /api/agent` takes it (a free-form map here); secrets come back redacted',
      ),
  })
  .register(RESPONSE_SCHEMAS, { id: 'Agent' });

export const conversationSchema = conversationRecord.register(RESPONSE_SCHEMAS, { id: 'Conversation' });

export const threadMessageSchema = threadMessageRecord
  .extend({
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
  })
  .register(RESPONSE_SCHEMAS, { id: 'ThreadMessage' });

/** Every event type with its payload, declared in core (`RUN_EVENT_BODIES`): the SSE route's `x-event-schema`. */
export const runEventSchema = coreRunEventSchema.register(RESPONSE_SCHEMAS, { id: 'RunEvent' });

export const approvalSchema = toolApprovalRecord.register(RESPONSE_SCHEMAS, { id: 'ToolApproval' });

export const userSchema = userRecord.register(RESPONSE_SCHEMAS, { id: 'User' });

/** The API never shows a host path: the workdir is relative to the data dir. */
export const projectSchema = projectRecord
  .extend({
    workdir: z
      .string()
      .nullable()
      .describe(
        "The project's workdir relative to the server's data dir (never a host path); null when elsewhere",
      ),
  })
  .register(RESPONSE_SCHEMAS, { id: 'Project' });

export const attachmentSchema = attachmentRecord.register(RESPONSE_SCHEMAS, { id: 'Attachment' });

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
    tokens_counted: z
      .literal('cache_weighted')
      .describe(
        '`tokens` counts output and uncached input tokens one each, cache reads and writes at their price relative to an uncached input token (docs/budgets.md#cached-tokens); the raw counts are in the usage',
      ),
  })
  .register(RESPONSE_SCHEMAS, { id: 'BudgetView' });
