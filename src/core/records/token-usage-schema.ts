import { z } from 'zod';
import type { ModelCallUsage } from '../runs/run-usage.js';
import type { TokenUsage } from './run.js';

/** A run's usage over its attempts (docs/usage.md), as the API and the run's `end` event carry it. */
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
  .describe('Usage over every attempt of the run; live while it runs') satisfies z.ZodType<TokenUsage>;

/** What one model call reported, stored with the turn it produced and carried by its `step` event. */
export const callUsageSchema = z.strictObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
}) satisfies z.ZodType<ModelCallUsage>;
