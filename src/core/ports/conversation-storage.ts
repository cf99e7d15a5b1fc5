import type { Agent } from '../records/agent.js';
import type { Conversation, ConversationStatus, SubagentThread } from '../records/conversation.js';
import type { Project } from '../records/project.js';
import type { Run, TokenUsage } from '../records/run.js';
import type { ThreadMessage } from '../records/thread-message.js';
import type { User } from '../records/user.js';
import type { ModelCallUsage } from '../runs/run-usage.js';
import type { ChatMessage } from '../thread/chat-message.js';

/* The projects, conversations, threads and subagent thread relations part of the storage port (`storage.ts`). */

export type NewProject = Omit<Project, 'id' | 'created_at'>;

export interface ProjectRepository {
  create(project: NewProject): Promise<Project>;
  get(id: string): Promise<Project | undefined>;
  listForUser(userId: string): Promise<Project[]>;
  /** The user's oldest project of that name (ties by id), read without listing the others. */
  oldestNamed(userId: string, name: string): Promise<Project | undefined>;
}

export type NewConversation = Omit<Conversation, 'id' | 'created_at' | 'updated_at'>;

export type ConversationPatch = Partial<Pick<Conversation, 'title' | 'status' | 'metadata'>>;

export interface ConversationWithParts {
  conversation: Conversation;
  agent: Agent | undefined;
  owner: User | undefined;
  project: Project | undefined;
}

export interface ConversationRepository {
  /**
   * `id`: one the caller made (`newId('cnv')`), when a write it starts together with this one names the
   * conversation (docs/scale-out.md, "What scales how"); made here otherwise.
   */
  create(conversation: NewConversation, id?: string): Promise<Conversation>;
  get(id: string): Promise<Conversation | undefined>;
  /**
   * The conversation with its agent, owner and project in one read, each as its repository's `get` returns
   * it (undefined when its row is gone): what a new run of the conversation works with. Undefined for an
   * unknown conversation.
   */
  getWithParts(id: string): Promise<ConversationWithParts | undefined>;
  getByThread(threadId: string): Promise<Conversation | undefined>;
  /** Newest first. */
  listForUser(userId: string, statuses: ConversationStatus[]): Promise<Conversation[]>;
  update(id: string, patch: ConversationPatch): Promise<Conversation>;
}

/** Messages of one step of a run (a checkpoint), in the order they are appended. */
export interface StepMessages {
  step: number;
  messages: readonly ChatMessage[];
  /** When the first message is a model's turn: the usage of the call that produced it, stored with it. */
  usage?: ModelCallUsage | undefined;
}

/** Messages of one run's steps for one thread, as one part of a multi-thread append (`messages.appendBatches`). */
export interface ThreadMessageBatch {
  threadId: string;
  runId: string | null;
  parts: readonly StepMessages[];
}

export interface MessageRepository {
  /**
   * Appends messages to a thread in one write (a checkpoint); returns them with their sequence numbers. The
   * returned `message`s are the ones given (a reader gets their JSON round trip).
   */
  append(
    threadId: string,
    runId: string | null,
    step: number,
    messages: ChatMessage[],
  ): Promise<ThreadMessage[]>;
  /** `append` of several steps' messages (checkpoints written together), in one write, in the order given. */
  appendSteps(
    threadId: string,
    runId: string | null,
    parts: readonly StepMessages[],
  ): Promise<ThreadMessage[]>;
  /**
   * `appendSteps` into several threads in one write (a child start: its parent's checkpoint and the child's
   * first message), each thread at most once; returns each batch's messages.
   */
  appendBatches(batches: readonly ThreadMessageBatch[]): Promise<ThreadMessage[][]>;
  list(threadId: string): Promise<ThreadMessage[]>;
  /**
   * What each run's stored turns settled, over all its attempts (`settledUsage` of their usage): read by the
   * runs' threads in one statement. A run without a settled turn is absent.
   */
  settledUsageOf(runs: readonly Pick<Run, 'id' | 'thread_id'>[]): Promise<Map<string, TokenUsage>>;
}

export type NewSubagentThread = Omit<SubagentThread, 'id' | 'created_at'>;

export interface SubagentThreadRepository {
  /** `id`: made by the caller, so rows that name the relation can be sent before its insert answered. */
  create(relation: NewSubagentThread, id?: string): Promise<SubagentThread>;
  get(id: string): Promise<SubagentThread | undefined>;
  /** The relations among `ids` that exist, in no particular order. */
  getMany(ids: readonly string[]): Promise<SubagentThread[]>;
  getByChildThread(childThreadId: string): Promise<SubagentThread | undefined>;
  listForParent(parentConversationId: string): Promise<SubagentThread[]>;
}
