import { z } from 'zod';
import { timestamp } from './record-fields.js';

/**
 * A file uploaded to a conversation; it lives under `uploads/` in the conversation's project workdir.
 * `name` is the sanitised file name (what the file is called on disk); `path` is relative to the project
 * workdir, e.g. `uploads/report.pdf`.
 */
export const attachmentRecord = z.strictObject({
  id: z.string(),
  conversation_id: z.string(),
  user_id: z.string(),
  name: z.string(),
  path: z.string(),
  size: z.number(),
  content_type: z.string(),
  created_at: timestamp,
});
export type Attachment = z.infer<typeof attachmentRecord>;
