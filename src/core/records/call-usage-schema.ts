import { z } from 'zod';
import type { ModelCallUsage } from '../runs/run-usage.js';
import { usageDetailFields } from './usage-detail-fields.js';

/** What one model call reported, stored with the turn it produced and carried by its `step` event. */
export const callUsageSchema = z.strictObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  ...usageDetailFields,
}) satisfies z.ZodType<ModelCallUsage>;
