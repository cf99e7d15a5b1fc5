import { z } from 'zod';
import { nullableTimestamp, timestamp } from './record-fields.js';

/**
 * `prefix`: first characters of the secret, kept so a user can tell tokens apart, never enough to use.
 * `token_hash`: SHA-256 of the secret; the secret itself is shown once and never stored.
 */
export const apiTokenRecord = z.strictObject({
  id: z.string(),
  user_id: z.string(),
  name: z.string(),
  prefix: z.string(),
  token_hash: z.string(),
  created_at: timestamp,
  last_used_at: nullableTimestamp,
  revoked_at: nullableTimestamp,
});
export type ApiToken = z.infer<typeof apiTokenRecord>;
