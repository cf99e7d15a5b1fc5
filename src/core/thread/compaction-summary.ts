import type { ChatMessage, UserChatMessage } from './chat-message.js';

/*
 * A compaction's summary (docs/model-calls.md#compaction) is one user message appended to the thread where
 * the compaction happened, marked in `providerOptions.troupe.compaction`. It stands for every message of the
 * prompt before it except the last `kept`; the originals stay in the thread and in the transcript, and a
 * prompt is built from the latest summary and the messages after the ones it covers (`promptView`).
 */

export interface CompactionMarker {
  /** Messages at the end of the prompt before the summary that it leaves as they are. */
  kept: number;
  /** Messages of the prompt it stands for (an earlier summary counts as one). */
  summarised: number;
}

/** What the model reads before the summary's text. */
export const SUMMARY_HEADING =
  'Summary of the earlier part of this conversation (its original turns were summarised to fit the ' +
  "model's context window; the user still sees them):";

export function summaryMessage(text: string, marker: CompactionMarker): UserChatMessage {
  return {
    role: 'user',
    content: `${SUMMARY_HEADING}\n\n${text}`,
    providerOptions: { troupe: { compaction: { kept: marker.kept, summarised: marker.summarised } } },
  };
}

export function compactionMarkerOf(message: ChatMessage): CompactionMarker | undefined {
  if (message.role !== 'user') return undefined;
  const marker = message.providerOptions?.troupe?.compaction;
  if (typeof marker !== 'object' || marker === null || Array.isArray(marker)) return undefined;
  const { kept, summarised } = marker as Record<string, unknown>;
  if (typeof kept !== 'number' || typeof summarised !== 'number') return undefined;
  return { kept, summarised };
}

/**
 * The prompt a thread makes: each summary replaces what it covers, so the result is the latest summary
 * followed by the messages after the ones it covers. A thread without summaries is returned as it is.
 */
export function promptView(messages: readonly ChatMessage[]): ChatMessage[] {
  return promptViewOf(messages, (message) => message);
}

/** `promptView` over records that hold a message (a thread's rows). */
export function promptViewOf<T>(items: readonly T[], messageOf: (item: T) => ChatMessage): T[] {
  let out: T[] | undefined;
  for (const [index, item] of items.entries()) {
    const marker = compactionMarkerOf(messageOf(item));
    if (marker === undefined) {
      out?.push(item);
      continue;
    }
    const before = out ?? items.slice(0, index);
    out = [item, ...before.slice(Math.max(0, before.length - marker.kept))];
  }
  return out ?? [...items];
}

/**
 * Where to cut a prompt for a compaction: the first index of the messages kept as they are. The kept tail
 * is the longest that fits `keepTokens` and starts at a message that is not a tool result, so a tool call
 * and its result are never split; at least `minSummarised` messages go into the summary and the last
 * message is always kept. Undefined when no cut summarises enough.
 */
export function compactionCut(
  messages: readonly ChatMessage[],
  tokensOf: (message: ChatMessage) => number,
  keepTokens: number,
  minSummarised = 1,
): number | undefined {
  let tail = 0;
  let cut: number | undefined;
  for (let index = messages.length - 1; index >= minSummarised; index -= 1) {
    const message = messages[index];
    if (message === undefined) break;
    tail += tokensOf(message);
    const boundary = message.role !== 'tool';
    if (tail > keepTokens && cut !== undefined) break;
    if (boundary) cut = index;
  }
  return cut;
}

const CLIP_MARKER = (omitted: number) => `\n[… ${omitted} characters omitted …]\n`;

/** A long text's head and tail with a marker saying how much was left out. */
export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const half = Math.max(1, Math.floor(maxChars / 2));
  return text.slice(0, half) + CLIP_MARKER(text.length - 2 * half) + text.slice(text.length - half);
}

/**
 * The messages as a plain transcript for the summariser, one entry per message (tool calls and results
 * written out by name), each part at most `maxPartChars` (head and tail kept).
 */
export function transcriptEntries(messages: readonly ChatMessage[], maxPartChars: number): string[] {
  return messages.map((message) => {
    if (compactionMarkerOf(message) !== undefined) {
      return `[Summary of what came before]\n${textOf(message.content)}`;
    }
    if (typeof message.content === 'string')
      return `${label(message.role)}: ${clipText(message.content, maxPartChars)}`;
    const lines: string[] = [];
    for (const part of message.content) {
      if (part.type === 'text') lines.push(`${label(message.role)}: ${clipText(part.text, maxPartChars)}`);
      else if (part.type === 'tool-call') {
        lines.push(
          `Assistant called ${part.toolName}: ${clipText(JSON.stringify(part.input), maxPartChars)}`,
        );
      } else if (part.type === 'tool-result') {
        const output = part.output;
        const value =
          output.type === 'execution-denied'
            ? `denied${output.reason ? `: ${output.reason}` : ''}`
            : typeof output.value === 'string'
              ? output.value
              : JSON.stringify(output.value);
        const failed = output.type.startsWith('error') ? ' (error)' : '';
        lines.push(`Result of ${part.toolName}${failed}: ${clipText(value, maxPartChars)}`);
      } else if (part.type === 'image' || part.type === 'file') {
        lines.push(`${label(message.role)}: [${part.type}]`);
      }
    }
    return lines.join('\n');
  });
}

function label(role: ChatMessage['role']): string {
  return role === 'user' ? 'User' : role === 'assistant' ? 'Assistant' : role === 'tool' ? 'Tool' : 'System';
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
