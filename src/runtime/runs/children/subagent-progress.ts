import type { Storage } from '../../../core/ports/storage.js';
import type { RunEvent, RunEventOf } from '../../../core/records/run-event.js';

export interface ProgressItem {
  seq: number;
  /** The tool call a `tool_call` or `tool_result` item belongs to (docs/subagents.md#subagent_status `tool_call_id`). */
  tool_call_id?: string;
  kind: 'assistant_message' | 'tool_call' | 'tool_result';
  content: string;
}

function toolCallId(event: RunEventOf<'tool_call' | 'tool_result'>): { tool_call_id?: string } {
  const id = event.payload.tool_call_id;
  return id !== '' ? { tool_call_id: id } : {};
}

export interface RunProgress {
  last_seq: number;
  items: ProgressItem[];
}

const MAX_ITEM_CHARS = 800;
/** How many of a run's latest events its progress is read from. */
export const PROGRESS_WINDOW = 200;

function clip(text: string): string {
  return text.length > MAX_ITEM_CHARS ? `...${text.slice(-MAX_ITEM_CHARS)}` : text;
}

/**
 * The latest readable progress of a run: whole assistant messages (deltas joined per step), tool calls and
 * tool results — not the raw delta fragments Yuxi returned (§9.8).
 */
export function summariseProgress(events: readonly RunEvent[], limit = 3): RunProgress {
  const items: ProgressItem[] = [];
  let text = '';
  let textSeq = 0;
  const flushText = (): void => {
    if (text.trim() !== '')
      items.push({ seq: textSeq, kind: 'assistant_message', content: clip(text.trim()) });
    text = '';
  };
  for (const event of events) {
    if (event.type === 'message_delta') {
      text += event.payload.text;
      textSeq = event.seq;
    } else if (event.type === 'tool_call') {
      flushText();
      items.push({
        seq: event.seq,
        ...toolCallId(event),
        kind: 'tool_call',
        content: clip(`Calling ${event.payload.name}(${JSON.stringify(event.payload.args ?? {})})`),
      });
    } else if (event.type === 'tool_result') {
      flushText();
      const output = event.payload.output;
      const rendered = typeof output === 'string' ? output : JSON.stringify(output);
      items.push({
        seq: event.seq,
        ...toolCallId(event),
        kind: 'tool_result',
        content: clip(`${event.payload.name} → ${rendered}`),
      });
    } else if (event.type === 'step' || event.type === 'end') {
      flushText();
    }
  }
  flushText();
  return { last_seq: events.at(-1)?.seq ?? 0, items: items.slice(-limit) };
}

/** One run's progress from its latest events, read as the status panel reads many runs' (`listLatest`). */
export async function readProgress(storage: Storage, runId: string, limit = 3): Promise<RunProgress> {
  return summariseProgress(await storage.events.listLatest([runId], PROGRESS_WINDOW), limit);
}
