import { z } from 'zod';
import { BUDGET_DIMENSIONS } from '../budgets/budget-dimension.js';

/**
 * Why a call or a run was refused, as data (docs/runs.md#events): the stable `code` a client branches on and
 * the `reason` without it, beside the text the model reads (which may still start with the code). Stored in a
 * `tool_result`'s `refusal` and a run error's `refusal`.
 */
export const refusalSchema = z.discriminatedUnion('code', [
  z
    .strictObject({
      code: z.literal('budget_exhausted'),
      reason: z.string().describe('What ran out, without the code'),
      dimension: z
        .enum([...BUDGET_DIMENSIONS, 'wall_ms'])
        .optional()
        .describe('The limit that was reached, when the ledger says which'),
      limit: z.number().nullable().optional().describe("The limit's value (null: the parent's wall time)"),
      spent: z
        .number()
        .optional()
        .describe(
          'Used or handed to children, of `limit`; tokens cache-weighted (docs/budgets.md#cached-tokens)',
        ),
    })
    .describe('A budget (docs/budgets.md) ran out, or cannot give a child what it asks'),
  z
    .strictObject({
      code: z.literal('tool_not_available'),
      reason: z.string(),
      tool: z.string(),
    })
    .describe('A call to a tool the run does not have, did not show the model, or hides from subagents'),
  z
    .strictObject({
      code: z.literal('approval_rejected'),
      reason: z.string(),
      tool: z.string(),
      comment: z.string().nullable().describe("The user's reason, if given"),
    })
    .describe('The user rejected a sensitive call'),
]);

export type Refusal = z.infer<typeof refusalSchema>;
export type RefusalCode = Refusal['code'];
