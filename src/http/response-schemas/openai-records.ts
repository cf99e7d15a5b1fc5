import { z } from 'zod';
import { RESPONSE_SCHEMAS } from './records.js';

/** The bodies of the OpenAI-compatible routes, closed like the API's own. */
export const openAiModelSchema = z
  .strictObject({
    id: z.string().describe("The agent's slug"),
    object: z.literal('model'),
    created: z.number().int(),
    owned_by: z.string().describe("The owner's user id"),
    name: z.string(),
    description: z.string(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'OpenAiModel' });

const openAiUsage = z.strictObject({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
});

const troupeIds = {
  conversation_id: z.string().describe('Troupe extension: the conversation, to continue it'),
  run_id: z.string().describe('Troupe extension: the run this completion is'),
};

export const chatCompletionSchema = z
  .strictObject({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.strictObject({
        index: z.number().int(),
        message: z.strictObject({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
        finish_reason: z.enum(['stop', 'length']),
        logprobs: z.null(),
      }),
    ),
    usage: openAiUsage,
    ...troupeIds,
  })
  .register(RESPONSE_SCHEMAS, { id: 'ChatCompletion' });

const openAiErrorFrame = z.strictObject({
  error: z.strictObject({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string(),
  }),
});

/** One `data:` frame of a streamed completion (the last one is the text `[DONE]`, not JSON). */
export const chatCompletionChunkSchema = z
  .union([
    z.strictObject({
      id: z.string(),
      object: z.literal('chat.completion.chunk'),
      created: z.number().int(),
      model: z.string(),
      choices: z.array(
        z.strictObject({
          index: z.number().int(),
          delta: z.strictObject({ role: z.literal('assistant').optional(), content: z.string().optional() }),
          finish_reason: z.enum(['stop', 'length']).nullable(),
          logprobs: z.null(),
        }),
      ),
      usage: openAiUsage
        .nullable()
        .optional()
        .describe('With stream_options.include_usage: null, then the totals'),
      ...troupeIds,
    }),
    openAiErrorFrame,
  ])
  .register(RESPONSE_SCHEMAS, { id: 'ChatCompletionChunk' });
