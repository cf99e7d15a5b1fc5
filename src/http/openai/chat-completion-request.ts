import { z } from 'zod';
import { TroupeError } from '../../core/errors.js';

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

/** A content part; only `text` parts can be used (in the last user message), the rest is refused there. */
const contentPartSchema = z.looseObject({ type: z.string().min(1).max(100), text: z.string().optional() });

const messageSchema = z
  .object({
    role: z.enum(ROLES),
    content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
    name: z.string().max(200).optional(),
    // Earlier turns are not replayed (the conversation lives server-side), but clients send them back as
    // they received them; their shape is accepted as is.
    tool_calls: z.array(z.unknown()).optional(),
    tool_call_id: z.string().optional(),
    function_call: z.unknown().optional(),
    refusal: z.string().nullable().optional(),
    audio: z.unknown().optional(),
  })
  .strict();

const nullableNumber = z.number().nullable().optional();

/**
 * `POST /v1/chat/completions`: OpenAI's request with one extension, `conversation_id`. Sampling settings
 * are accepted and ignored (the agent's configuration decides); what Troupe cannot honour — several
 * choices, client-side tools, enforced JSON output, audio — is refused rather than silently dropped.
 */
export const chatCompletionRequestSchema = z
  .object({
    model: z.string().min(1).max(200).describe("A chat agent's slug, as listed by GET /v1/models"),
    messages: z
      .array(messageSchema)
      .min(1)
      .describe('Only the last message (a user message) is used: Troupe keeps the conversation server-side'),
    stream: z.boolean().nullable().optional(),
    stream_options: z
      .object({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() })
      .strict()
      .nullable()
      .optional(),
    conversation_id: z
      .string()
      .min(1)
      .max(200)
      .nullable()
      .optional()
      .describe(
        'Troupe extension: continue this conversation of yours; omitted, a new conversation is started',
      ),
    n: z.literal(1).nullable().optional().describe('Only 1 is supported'),
    tools: z
      .array(z.unknown())
      .max(0, 'client-side tools are not supported: the agent uses its own tools')
      .optional(),
    functions: z
      .array(z.unknown())
      .max(0, 'client-side functions are not supported: the agent uses its own tools')
      .optional(),
    tool_choice: z.union([z.enum(['none', 'auto']), z.record(z.string(), z.unknown())]).optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    response_format: z
      .object({ type: z.literal('text') })
      .strict()
      .nullable()
      .optional()
      .describe('Only {"type":"text"}: the agent decides the shape of its answer'),
    modalities: z.array(z.literal('text')).nullable().optional(),
    temperature: nullableNumber,
    top_p: nullableNumber,
    presence_penalty: nullableNumber,
    frequency_penalty: nullableNumber,
    max_tokens: z.number().int().nullable().optional(),
    max_completion_tokens: z.number().int().nullable().optional(),
    seed: z.number().int().nullable().optional(),
    stop: z
      .union([z.string(), z.array(z.string())])
      .nullable()
      .optional(),
    logit_bias: z.record(z.string(), z.number()).nullable().optional(),
    logprobs: z.boolean().nullable().optional(),
    top_logprobs: z.number().int().nullable().optional(),
    user: z.string().max(500).optional(),
    metadata: z.record(z.string(), z.string()).nullable().optional(),
    store: z.boolean().nullable().optional(),
    service_tier: z.string().max(100).nullable().optional(),
    reasoning_effort: z.string().max(100).nullable().optional(),
    verbosity: z.string().max(100).nullable().optional(),
    prompt_cache_key: z.string().max(500).optional(),
    safety_identifier: z.string().max(500).optional(),
  })
  .strict();

export type ChatCompletionRequest = z.output<typeof chatCompletionRequestSchema>;

function refuse(message: string): TroupeError {
  return new TroupeError('validation_failed', message, { details: { param: 'messages' } });
}

/** The text of the last message, which must be the user's; images, audio and files are refused. */
export function lastUserText(request: ChatCompletionRequest): string {
  const last = request.messages.at(-1);
  if (last?.role !== 'user') {
    throw refuse(
      'The last message must be a user message: Troupe keeps the conversation server-side and runs the agent on your new message',
    );
  }
  const { content } = last;
  if (typeof content === 'string') return content;
  if (!content) return '';
  const unsupported = content.find((part) => part.type !== 'text');
  if (unsupported) throw refuse(`Content parts of type "${unsupported.type}" are not supported; send text`);
  return content.map((part) => part.text ?? '').join('\n');
}
