import { z } from 'zod';

/**
 * The token details a model call may report beside its input and output (docs/usage.md#cached-and-reasoning-tokens):
 * absent when the provider reported none, so rows stored before they existed read the same.
 */
export const usageDetailFields = {
  cache_read_tokens: z
    .number()
    .optional()
    .describe("Input tokens read from the provider's prompt cache (part of input_tokens)"),
  cache_write_tokens: z
    .number()
    .optional()
    .describe("Input tokens written to the provider's prompt cache (part of input_tokens)"),
  reasoning_tokens: z
    .number()
    .optional()
    .describe('Output tokens spent on reasoning (part of output_tokens)'),
};
