import { z } from 'zod';
import { childBudgetSchema } from '../budgets/budget-schema.js';
import { acceptanceInput } from '../verification/acceptance-input.js';

/** The input schemas of `task` and the lifecycle tools: what the model sees of their arguments. */
export const startInput = z.object({
  description: z
    .string()
    .describe('The task for the subagent, with the context it needs and the output you expect.'),
  subagent_slug: z.string().describe('Which subagent to use: one of the available slugs.'),
  thread_id: z
    .string()
    .nullish()
    .describe(
      'Optional. A subagent thread ID from an earlier result, to continue that thread. Leave empty for a new task.',
    ),
  budget: childBudgetSchema,
  acceptance: acceptanceInput,
});

export const runIdInput = z.object({
  run_id: z.string().describe('A subagent run ID returned by subagent_start.'),
});
export const awaitInput = z
  .object({
    run_id: z.string().optional().describe('One subagent run ID.'),
    run_ids: z.array(z.string()).min(1).max(100).optional().describe('Several subagent run IDs.'),
    mode: z
      .enum(['all', 'any'])
      .optional()
      .describe('With run_ids: wait for all of them (default) or the first to finish.'),
    timeout_ms: z.number().int().min(0).optional().describe('Optional wait limit in milliseconds.'),
  })
  .refine((input) => (input.run_id === undefined) !== (input.run_ids === undefined), {
    message: 'give either run_id or run_ids',
  });
export const steerInput = z.object({
  run_id: z.string().describe('A subagent run ID returned by subagent_start.'),
  message: z.string().min(1).describe('What the subagent should know or change.'),
});
