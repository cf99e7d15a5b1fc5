import { z } from 'zod';

const amount = (what: string) => z.number().int().min(1).max(1_000_000_000).optional().describe(what);

/** A budget (docs/budgets.md): on an agent's `config.budget`, narrowed by a request, or asked for by a child start. */
export const budgetSchema = z
  .object({
    tokens: amount('Input plus output tokens of every model call'),
    model_calls: amount('Model calls'),
    tool_calls: amount('Tool executions'),
    wall_ms: amount('Wall time from the start, in milliseconds'),
  })
  .strict()
  .describe(
    'Budget of a run tree (docs/budgets.md): a run that reaches a limit ends failed with budget_exhausted',
  );

/** What a child start (`task`, `subagent_start`, `delegate`) may ask for: a part of the caller's remaining budget. */
export const childBudgetSchema = budgetSchema
  .optional()
  .describe('Optional cap on what this child may spend of your remaining budget (default: a share).');
