import { z } from 'zod';
import { MAX_PAGE_LIMIT } from '../../runtime/agents-api/cursor-page.js';
import { parseInput } from '../body.js';

/*
 * The request bodies and queries of OpenAI's Agents API shape (docs/interoperability.md#openai-agents-api): the
 * official SDK's parameter types, strict like every Troupe body (an unknown field is `400 validation_failed`
 * naming it). Settings Troupe takes from the agent's own configuration (reasoning, text, service tier,
 * compaction, prompt caching, review) are accepted and have no effect.
 */

const metadataSchema = z
  .record(z.string().min(1).max(64), z.string().max(512))
  .refine((metadata) => Object.keys(metadata).length <= 16, 'metadata has at most 16 keys')
  .describe('Up to 16 string pairs; keys up to 64 characters, values up to 512');

const ignoredSettings = {
  reasoning: z
    .strictObject({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']).nullable().optional(),
      summary: z.enum(['concise', 'detailed', 'auto']).nullable().optional(),
    })
    .nullable()
    .optional()
    .describe('Accepted, no effect: the model spec decides'),
  service_tier: z
    .enum(['auto', 'default', 'flex', 'priority', 'fast', 'ultrafast'])
    .nullable()
    .optional()
    .describe('Accepted, no effect'),
  text: z.unknown().optional().describe('Accepted, no effect: answers are text'),
  compaction: z.unknown().optional().describe('Accepted, no effect'),
  experimental: z.unknown().optional().describe('Accepted, no effect'),
};

const agentFields = {
  name: z.string().trim().min(1).max(200).nullable().optional(),
  instructions: z.string().max(100_000).nullable().optional().describe("The agent's system prompt"),
  metadata: metadataSchema.nullable().optional().describe('Only empty: Troupe agents have no metadata'),
  tools: z
    .array(z.unknown())
    .nullable()
    .optional()
    .describe("Only empty: the agent's tools are config.tools"),
  multi_agent: z
    .strictObject({
      enabled: z.boolean(),
      max_concurrent_subagents: z.number().int().min(1).max(1000).optional(),
    })
    .nullable()
    .optional()
    .describe('`max_concurrent_subagents` is the per-run children limit; `enabled: false` is refused'),
  ...ignoredSettings,
};

export const agentCreateBodySchema = z.strictObject({
  model: z.string().min(1).max(200).describe('A Troupe model spec, e.g. `openai:gpt-4o-mini`'),
  ...agentFields,
});

export const agentUpdateBodySchema = z.strictObject({
  model: z.string().min(1).max(200).optional(),
  ...agentFields,
});

const inputContentSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('input_text'), text: z.string().max(1_000_000) }),
  z.strictObject({ type: z.literal('input_image'), image_url: z.string() }),
]);

const inputMessageSchema = z.strictObject({
  role: z.literal('user'),
  content: z.array(inputContentSchema).min(1),
  type: z.literal('message').optional(),
});

const environmentSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('none') }),
    z.strictObject({ type: z.literal('openai_hosted') }),
    z.strictObject({
      type: z.literal('self_hosted'),
      workspace_directory: z.string().min(1).max(1000),
      capability_directories: z.array(z.string()).nullable().optional(),
    }),
  ])
  .describe(
    "`none`: no sandbox; another type is Troupe's `execute` sandbox over the session's project workdir (the " +
      "agent's `config.execute` sets it up), refused with `environment_not_available` when the agent lacks it",
  );

export const sessionCreateBodySchema = z.strictObject({
  agent_id: z.string().min(1).max(200).describe('An agent id or slug'),
  environment: environmentSchema,
  input: z
    .union([z.string().min(1).max(1_000_000), z.array(inputMessageSchema).min(1)])
    .nullable()
    .optional()
    .describe('The first user message: starts the first turn'),
  metadata: metadataSchema.nullable().optional(),
  agent: z.never().optional().describe('Not supported: sessions run a stored agent (`agent_id`)'),
  vault_ids: z.array(z.string()).max(0, 'Troupe has no vaults').nullable().optional(),
  stream: z.literal(false).optional().describe('Only false: stream with GET …/events'),
  stream_options: z.unknown().optional(),
  prompt_cache_options: z.unknown().optional().describe('Accepted, no effect'),
  review: z.enum(['none', 'auto_review']).optional().describe('Accepted, no effect'),
});

export const sessionUpdateBodySchema = z.strictObject({
  metadata: metadataSchema.nullable().optional().describe('Replaces the metadata; null clears it'),
  agent: z.never().optional().describe('Not supported: update the agent itself'),
  prompt_cache_options: z.unknown().optional().describe('Accepted, no effect'),
  review: z.enum(['none', 'auto_review']).optional().describe('Accepted, no effect'),
});

const inputEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('agent.session.input.message'),
    input: z.array(inputMessageSchema).min(1),
  }),
  z.strictObject({
    type: z.literal('agent.session.input.mcp_approval_request_result'),
    request_id: z.string().min(1).max(200).describe('The waiting call (a required action `request_id`)'),
    response: z.strictObject({
      type: z.literal('mcp_tool_call'),
      decision: z.enum(['approve', 'deny', 'cancel']).describe('`cancel` rejects the call, like `deny`'),
    }),
  }),
  z.strictObject({
    type: z.literal('agent.session.input.computer_use_approval_request_result'),
    request_id: z.string(),
    response: z.unknown(),
  }),
  z.strictObject({ type: z.literal('agent.session.input.cancel') }),
  z.strictObject({
    type: z.literal('agent.session.input.tool_result'),
    call_id: z.string().min(1).max(200),
    turn_id: z.string().min(1).max(200),
    success: z.boolean(),
    error: z.string().nullable().optional(),
    output: z
      .union([z.string(), z.array(inputContentSchema)])
      .nullable()
      .optional()
      .describe(
        'The answers to an ask_user_question call: text, a JSON array of strings, or input_text parts',
      ),
  }),
]);

export const sessionEventsBodySchema = z.strictObject({
  events: z.array(inputEventSchema).min(1).max(16),
});

export const pageQuerySchema = z.object({
  after: z.string().min(1).max(300).optional().describe('The id of the last object of the previous page'),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).optional().describe('1 to 100, default 20'),
  order: z.enum(['asc', 'desc']).optional().describe('Default `desc`: newest first'),
});

const METADATA_KEY = /^metadata\[(.+)\]$/;

export const sessionListQuerySchema = pageQuerySchema
  .extend({ agent_id: z.string().min(1).max(200).optional() })
  .catchall(z.string())
  .superRefine((query, context) => {
    for (const key of Object.keys(query)) {
      if (['after', 'limit', 'order', 'agent_id'].includes(key) || METADATA_KEY.test(key)) continue;
      context.addIssue({ code: 'custom', message: `Unknown query parameter "${key}"`, path: [key] });
    }
  })
  .describe('`metadata[KEY]=VALUE` keeps sessions whose metadata has that pair');

/** The `metadata[KEY]` filters of a session list query. */
export function metadataFilter(query: Record<string, unknown>): Record<string, string> {
  const filter: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    const match = METADATA_KEY.exec(key);
    if (match?.[1] !== undefined && typeof value === 'string') filter[match[1]] = value;
  }
  return filter;
}

/** The `Idempotency-Key` header: per user, a repeated key starts no second turn. */
export const idempotencyKeySchema = z.string().min(1).max(180).optional();

/** The `Idempotency-Key` header, checked like any input. */
export function idempotencyKeyOf(c: {
  req: { header(name: string): string | undefined };
}): string | undefined {
  return parseInput(idempotencyKeySchema, c.req.header('Idempotency-Key'), 'header.Idempotency-Key');
}

/** The OpenAPI tag of the Agents API routes. */
export const AGENTS_API_TAG = 'openai-agents';

export const sessionParamsSchema = z.object({ id: z.string().min(1).max(200).describe('The session id') });
