import { z } from 'zod';

/** The `acceptance` argument of `task`, `subagent_start` and `delegate` (docs/verified-delegation.md). */
export const acceptanceInput = z
  .string()
  .max(20_000)
  .optional()
  .describe(
    'Optional criteria the result must meet; a grader checks the result and asks for a revision if not.',
  );
