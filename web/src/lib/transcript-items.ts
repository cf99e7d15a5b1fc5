import type { Refusal } from '../../../src/core/records/refusal.ts';

/** What a chat turn shows, whether it comes from persisted messages or from a live event stream. */
export type TranscriptItem = TextItem | ToolItem | NoticeItem;

export interface TextItem {
  kind: 'text';
  text: string;
  /** Stored when its run ended mid-answer: how the run ended ("cancelled", "failed"). */
  partial?: string;
}

export interface ToolItem {
  kind: 'tool';
  toolCallId: string;
  name: string;
  args: unknown;
  result?: ToolResult;
}

export interface ToolResult {
  output: unknown;
  isError: boolean;
  /** Why the call was refused (rejected by the user, a tool the run does not have), as the server said. */
  refusal?: Refusal;
  /** An external call cut off by a server that stopped: its outcome is unknown (docs/effects-and-forks.md). */
  outcome?: 'unknown';
}

export interface NoticeItem {
  kind: 'notice';
  tone: 'info' | 'error';
  code?: string;
  text: string;
}

export interface ChatTurn {
  key: string;
  role: 'user' | 'assistant' | 'notice';
  runId: string | null;
  items: TranscriptItem[];
  /** Built from the live stream (the run is running, or ended during this visit). */
  live?: boolean;
}
