export const CONVERSATION_STATUSES = ['active', 'subagent', 'delegation', 'archived'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

export interface Conversation {
  id: string;
  user_id: string;
  agent_id: string;
  thread_id: string;
  project_id: string;
  status: ConversationStatus;
  title: string;
  /** Child conversations: `{parent_conversation_id, parent_thread_id, created_by_run_id, subagent_slug}`. */
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

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
