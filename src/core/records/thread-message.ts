import { z } from 'zod';
import type { ChatMessage } from '../thread/chat-message.js';
import { timestamp } from './record-fields.js';
import { usageDetailFields } from './usage-detail-fields.js';

/** A model call's usage, stored with the turn it produced. */
export const modelCallUsageRecord = z.strictObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  ...usageDetailFields,
});

/**
 * One message of a thread. The messages a step appends are written together: that is the checkpoint.
 * `step`: step number inside its run (0 = the run's input); resuming a run continues after its last step.
 * `message` is documented part by part by the HTTP schema (`src/http/response-schemas/`). `usage`: a model's
 * turn, what the call that produced it reported (docs/usage.md); null for other messages.
 */
export const threadMessageRecord = z.strictObject({
  thread_id: z.string(),
  seq: z.number().int(),
  run_id: z.string().nullable(),
  step: z.number().int(),
  message: z.custom<ChatMessage>(),
  created_at: timestamp,
  usage: modelCallUsageRecord.nullable().describe("A model's turn: the usage of the call that produced it"),
});
export type ThreadMessage = z.infer<typeof threadMessageRecord>;
