import { z } from 'zod';
import { refusalSchema } from './refusal.js';
import type { RunError } from './run.js';

/** Why a run failed or stopped: `type` is the stable code; a refusal's data, when one ended it. */
export const runErrorSchema = z.strictObject({
  type: z.string(),
  message: z.string(),
  refusal: refusalSchema.optional(),
}) satisfies z.ZodType<RunError>;
