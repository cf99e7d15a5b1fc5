import { z } from 'zod';
import { childBudgetSchema } from '../budgets/budget-schema.js';
import { acceptanceInput } from '../verification/acceptance-input.js';

/** The input schemas of `task` and the lifecycle tools: what the model sees of their arguments. */
export const startInput = z.object({
  description: z.string().describe('The goal, the context it needs and the output you expect.'),
  subagent_slug: z.string().describe('An available subagent slug.'),
  thread_id: z
    .string()
    .nullish()
    .describe('Only to continue a thread: the subagent thread ID of an earlier result.'),
  budget: childBudgetSchema,
  acceptance: acceptanceInput,
});

export const runIdInput = z.object({
  run_id: z.string().describe('From subagent_start.'),
});
export const awaitInput = z
  .object({
    run_id: z.string().optional(),
    run_ids: z.array(z.string()).min(1).max(100).optional(),
    mode: z.enum(['all', 'any']).optional().describe('With run_ids: all (default) or the first to finish.'),
    timeout_ms: z.number().int().min(0).optional(),
  })
  .refine((input) => (input.run_id === undefined) !== (input.run_ids === undefined), {
    message: 'give either run_id or run_ids',
  });
export const steerInput = z.object({
  run_id: z.string().describe('From subagent_start.'),
  message: z.string().min(1),
});
