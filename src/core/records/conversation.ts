import { z } from 'zod';
import { timestamp } from './record-fields.js';

export const CONVERSATION_STATUSES = ['active', 'subagent', 'delegation', 'archived', 'grader'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** `metadata` of child conversations: `{parent_conversation_id, parent_thread_id, created_by_run_id, subagent_slug}`. */
export const conversationRecord = z.strictObject({
  id: z.string(),
  user_id: z.string(),
  agent_id: z.string(),
  thread_id: z.string(),
  project_id: z.string(),
  status: z.enum(CONVERSATION_STATUSES),
  title: z.string(),
  metadata: z
    .record(z.string(), z.unknown())
    .describe('Free-form: child conversations name their parent; an AG-UI thread its `ag_ui_thread_id`'),
  created_at: timestamp,
  updated_at: timestamp,
});
export type Conversation = z.infer<typeof conversationRecord>;

export interface SubagentThread {
  id: string;
  user_id: string;
  parent_conversation_id: string;
  child_conversation_id: string;
  child_thread_id: string;
  subagent_slug: string;
  created_by_run_id: string;
  created_at: string;
}
