import { z } from 'zod';
import { timestamp } from './record-fields.js';

/**
 * `workdir`: absolute path of the project's real directory on disk; every workdir tool is confined to it.
 * The API shows it relative to the data dir instead (`src/http/response-schemas/`).
 */
export const projectRecord = z.strictObject({
  id: z.string(),
  user_id: z.string(),
  name: z.string(),
  workdir: z.string(),
  created_at: timestamp,
});
export type Project = z.infer<typeof projectRecord>;
