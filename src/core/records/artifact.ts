import { z } from 'zod';
import { timestamp } from './record-fields.js';

/**
 * A workdir file a run presented to the user (`present_artifacts`), listed per conversation.
 * `tool_call_id`: the `present_artifacts` call that presented it. `size`: bytes when it was presented; the
 * download sends what the file holds then.
 */
export const artifactRecord = z.strictObject({
  id: z.string(),
  conversation_id: z.string(),
  run_id: z.string(),
  user_id: z.string(),
  tool_call_id: z.string(),
  path: z.string().describe('Relative to the project workdir'),
  title: z.string().nullable(),
  size: z.number().int(),
  content_type: z.string(),
  created_at: timestamp,
});
export type Artifact = z.infer<typeof artifactRecord>;
