import { z } from 'zod';
import { RESPONSE_SCHEMAS } from './records.js';

/*
 * The bodies of OpenAI's Agents API shape (`/v1/agents…`, docs/interoperability.md#openai-agents-api): the
 * official SDK's types (`openai` v7, `resources/beta/agents/`) for what Troupe fills, closed like the API's own.
 */

const unixSeconds = z.number().int().describe('Unix time, in seconds');

export const agentsApiUsageSchema = z
  .strictObject({
    input_tokens: z.number().int(),
    input_tokens_details: z.strictObject({ cached_tokens: z.number().int() }),
    output_tokens: z.number().int(),
    output_tokens_details: z.strictObject({ reasoning_tokens: z.number().int() }),
    total_tokens: z.number().int(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'AgentsApiTokenUsage' });

const agentSettings = {
  name: z.string().nullable(),
  instructions: z.string().nullable().describe("The agent's system prompt"),
  model: z.string().describe('Troupe model spec (`provider:model`)'),
  multi_agent: z.strictObject({
    enabled: z.literal(true).describe('Every main agent may start subagents'),
    max_concurrent_subagents: z.number().int().nullable(),
  }),
  reasoning: z.strictObject({ effort: z.null(), summary: z.null() }),
  service_tier: z.literal('auto'),
  text: z.strictObject({
    format: z.strictObject({ type: z.literal('text') }),
    verbosity: z.literal('medium'),
  }),
  tools: z.array(z.never()).describe("Always empty: Troupe's tools run on the server (`config.tools`)"),
};

export const agentsApiAgentSchema = z
  .strictObject({
    id: z.string(),
    object: z.literal('agent'),
    created_at: unixSeconds,
    updated_at: unixSeconds,
    metadata: z.record(z.string(), z.string()).describe('Always empty: Troupe agents have no metadata'),
    ...agentSettings,
  })
  .register(RESPONSE_SCHEMAS, { id: 'AgentsApiAgent' });

const environmentSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({
    type: z.literal('openai_hosted'),
    id: z.string().describe("The session's project (its workdir is the sandbox's)"),
    capability_directories: z.array(z.string()),
    files: z.array(z.never()),
    network: z.strictObject({
      access: z.enum(['enabled', 'disabled']),
      allowed_domains: z.array(z.string()),
    }),
    packages: z.strictObject({
      npm: z.array(z.string()),
      python: z.array(z.string()),
      system: z.array(z.string()),
    }),
    plugins: z.array(z.never()),
    skills: z.array(z.never()),
  }),
  z.strictObject({
    type: z.literal('self_hosted'),
    id: z.string(),
    capability_directories: z.array(z.string()),
    remote_url: z.string(),
    workspace_directory: z.string(),
  }),
]);

const requiredActionSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('mcp_approval_request').describe('A tool call waiting for approval'),
    request_id: z.string().describe("The call's tool_call_id"),
    turn_id: z.string(),
    request: z.strictObject({
      type: z.literal('mcp_tool_call'),
      arguments: z.unknown(),
      message: z.string(),
      name: z.string().nullable(),
      server_label: z.literal('troupe'),
    }),
  }),
  z.strictObject({
    type: z.literal('function_call').describe('An ask_user_question call waiting for answers'),
    arguments: z.unknown(),
    call_id: z.string(),
    name: z.string(),
    turn_id: z.string(),
  }),
]);

export const agentsApiSessionSchema = z
  .strictObject({
    id: z.string().describe('The conversation'),
    object: z.literal('agent.session'),
    agent: z.strictObject({ id: z.string(), ...agentSettings }),
    created_at: unixSeconds,
    environment: environmentSchema,
    error: z.string().nullable(),
    last_active_at: unixSeconds,
    metadata: z.record(z.string(), z.string()),
    required_actions: z.array(requiredActionSchema),
    status: z.enum(['idle', 'in_progress', 'requires_action', 'failed']),
    usage: agentsApiUsageSchema.nullable().describe("The sum of the session's turns"),
    vault_ids: z.array(z.never()),
  })
  .register(RESPONSE_SCHEMAS, { id: 'AgentsApiSession' });

export const agentsApiTurnSchema = z
  .strictObject({
    id: z.string().describe('The run'),
    object: z.literal('agent.session.turn'),
    agent_id: z.string(),
    session_id: z.string(),
    subagent_id: z.string().nullable(),
    status: z.enum(['queued', 'in_progress', 'waiting', 'completed', 'failed', 'cancelled']),
    created_at: unixSeconds,
    started_at: unixSeconds.nullable(),
    completed_at: unixSeconds.nullable(),
    error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
    usage: agentsApiUsageSchema.nullable(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'AgentsApiTurn' });

const itemStatus = z.enum(['in_progress', 'completed', 'failed', 'incomplete']);

export const agentsApiItemSchema = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('message'),
      id: z.string(),
      role: z.enum(['user', 'assistant']),
      content: z.array(z.strictObject({ type: z.enum(['input_text', 'output_text']), text: z.string() })),
      phase: z.enum(['commentary', 'final_answer']).nullable(),
      status: z.enum(['in_progress', 'completed', 'incomplete']),
      turn_id: z.string(),
    }),
    z.strictObject({
      type: z.literal('reasoning'),
      id: z.string(),
      summary: z.array(z.strictObject({ type: z.literal('summary_text'), text: z.string() })),
      status: z.literal('completed'),
      turn_id: z.string(),
    }),
    z.strictObject({
      type: z.literal('function_call'),
      id: z.string(),
      call_id: z.string(),
      name: z.string(),
      arguments: z.unknown(),
      status: itemStatus,
      turn_id: z.string(),
    }),
    z.strictObject({
      type: z.literal('function_call_output'),
      id: z.string(),
      call_id: z.string(),
      output: z.string().nullable(),
      error: z.string().nullable(),
      status: z.enum(['completed', 'failed']),
      turn_id: z.string(),
    }),
  ])
  .register(RESPONSE_SCHEMAS, { id: 'AgentsApiItem' });

export const agentsApiSubagentSchema = z
  .strictObject({
    id: z.string().describe("The subagent's child conversation"),
    object: z.literal('agent.session.subagent'),
    session_id: z.string(),
    name: z.string().nullable(),
    parent_agent_id: z.string(),
    instructions: z.array(z.strictObject({ type: z.literal('output_text'), text: z.string() })).nullable(),
    status: z.enum(['active', 'closed']),
    opened_at: unixSeconds,
    closed_at: unixSeconds.nullable(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'AgentsApiSubagent' });

export const agentsApiArtifactSchema = z
  .strictObject({
    id: z.string(),
    object: z.literal('agent.session.artifact'),
    session_id: z.string(),
    turn_id: z.string(),
    environment_id: z.string().describe("The session's project"),
    path: z.string().describe('Relative to the project workdir'),
    size_bytes: z.number().int(),
    created_at: unixSeconds,
  })
  .register(RESPONSE_SCHEMAS, { id: 'AgentsApiArtifact' });

/** A page as the SDK's `CursorPage` reads it (`last_id` for `ConversationCursorPage`). */
export function agentsApiPage(item: z.ZodType) {
  return z.strictObject({
    object: z.literal('list'),
    data: z.array(item),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  });
}

export function agentsApiDeleted<T extends string>(object: T) {
  return z.strictObject({ id: z.string(), object: z.literal(object), deleted: z.literal(true) });
}

/** What every event of a turn carries. */
const turnEventFields = { event_id: z.string(), session_id: z.string(), turn_id: z.string() };

/** What every event about one content part of an output item carries. */
const contentEventFields = {
  ...turnEventFields,
  item_id: z.string(),
  output_index: z.number().int(),
  content_index: z.number().int(),
};

/** One `data:` frame of a session's event stream. */
export const agentsApiSessionEventSchema = z
  .union([
    z.strictObject({
      type: z.enum([
        'agent.session.idle',
        'agent.session.in_progress',
        'agent.session.requires_action',
        'agent.session.failed',
      ]),
      event_id: z.string(),
      session: agentsApiSessionSchema,
    }),
    z.strictObject({
      type: z.enum(['agent.session.turn.created', 'agent.session.turn.in_progress']),
      ...turnEventFields,
      turn: agentsApiTurnSchema,
    }),
    z.strictObject({
      type: z.enum([
        'agent.session.turn.completed',
        'agent.session.turn.failed',
        'agent.session.turn.cancelled',
      ]),
      ...turnEventFields,
      turn: agentsApiTurnSchema,
      usage: agentsApiUsageSchema.nullable(),
    }),
    z.strictObject({
      type: z.enum(['agent.session.turn.item.added', 'agent.session.turn.item.done']),
      ...turnEventFields,
      item: agentsApiItemSchema,
      output_index: z.number().int(),
    }),
    z.strictObject({
      type: z.enum(['agent.session.turn.content_part.added', 'agent.session.turn.content_part.done']),
      ...contentEventFields,
      part: z.strictObject({ type: z.literal('output_text'), text: z.string() }),
    }),
    z.strictObject({
      type: z.literal('agent.session.turn.output_text.delta'),
      ...contentEventFields,
      delta: z.string(),
    }),
    z.strictObject({
      type: z.literal('agent.session.turn.output_text.done'),
      ...contentEventFields,
      text: z.string(),
    }),
    z.strictObject({
      type: z.enum([
        'agent.session.subagent.created',
        'agent.session.subagent.active',
        'agent.session.subagent.closed',
      ]),
      event_id: z.string(),
      subagent: agentsApiSubagentSchema,
    }),
    z.strictObject({
      type: z.literal('error'),
      event_id: z.string(),
      session_id: z.string(),
      error: z.strictObject({
        code: z.string().nullable(),
        message: z.string(),
        param: z.string().nullable(),
        type: z.string(),
      }),
    }),
  ])
  .register(RESPONSE_SCHEMAS, { id: 'AgentsApiSessionEvent' });
