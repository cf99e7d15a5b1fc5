import { z } from 'zod';

/** The `acceptance` argument of `task`, `subagent_start` and `delegate` (docs/verified-delegation.md). */
export const acceptanceInput = z
  .string()
  .max(20_000)
  .optional()
  .describe(
    'Optional. Acceptance criteria: what the result must satisfy. An independent grader checks the finished result against them and asks for a revision when they are not met.',
  );
