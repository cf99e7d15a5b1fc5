import { z } from 'zod';

/**
 * `{id}` path parameters. Only the length is checked: a well-formed but unknown id and a malformed one
 * both end as `*_not_found`, so clients need a single branch and probing learns nothing.
 */
export const idParamsSchema = z.object({
  id: z.string().min(1).max(200).describe('Record id (agents also accept their slug)'),
});
