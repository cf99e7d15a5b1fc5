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
  /** `outcome: 'unknown'`: an external call cut off by a server that stopped (docs/effects-and-forks.md). */
  result?: { output: unknown; isError: boolean; outcome?: 'unknown' };
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
