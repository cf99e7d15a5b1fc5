import { hasUnknownOutcome } from '../../../src/core/tools/unknown-outcome.ts';
import type { ContentPart, Run, ThreadMessage, ToolResultOutput } from '../api/types.ts';
import type { LiveRun } from './live-run.ts';
import type { ChatTurn, ToolItem, ToolResult, TranscriptItem } from './transcript-items.ts';
import { toolResultRefusal } from '../../../src/core/thread/tool-result-marks.ts';
import { compactionNotice } from './model-notice.ts';

function textOf(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content
    .filter(
      (part): part is { type: 'text'; text: string } => part.type === 'text' && typeof part.text === 'string',
    )
    .map((part) => part.text)
    .join('');
}

function resultValue(part: { output?: ToolResultOutput; providerOptions?: unknown }): ToolResult {
  const { output } = part;
  if (output === undefined) return { output: undefined, isError: false };
  const refusal = toolResultRefusal(part);
  return {
    output: 'value' in output ? output.value : output,
    isError: output.type.startsWith('error'),
    ...(refusal ? { refusal } : {}),
    ...(hasUnknownOutcome(part) ? { outcome: 'unknown' as const } : {}),
  };
}

function assistantItems(content: string | ContentPart[], partial?: string): TranscriptItem[] {
  const marker = partial !== undefined ? { partial } : {};
  if (typeof content === 'string') return content === '' ? [] : [{ kind: 'text', text: content, ...marker }];
  const items: TranscriptItem[] = [];
  for (const part of content) {
    if (part.type === 'text' && typeof part.text === 'string' && part.text !== '') {
      items.push({ kind: 'text', text: part.text, ...marker });
    } else if (part.type === 'tool-call') {
      const call = part as { toolCallId: string; toolName: string; input: unknown };
      items.push({ kind: 'tool', toolCallId: call.toolCallId, name: call.toolName, args: call.input });
    }
  }
  return items;
}

export interface BuildTranscriptInput {
  messages: ThreadMessage[];
  /** Runs shown from their event stream instead of their persisted steps (step 0, the user input, stays). */
  liveRuns?: ReadonlyMap<string, LiveRun>;
  /** The conversation's runs: failed, cancelled and interrupted ones get a notice after their messages. */
  runs?: readonly Run[];
  /** The input of a live run whose user message is not loaded yet (just posted). */
  liveInputs?: ReadonlyMap<string, string>;
}

function runErrorOf(view: LiveRun): Run['error'] {
  const error = view.end?.error;
  return error ? { type: error.type ?? 'error', message: error.message } : null;
}

function endNotice(run: Pick<Run, 'id' | 'status' | 'error'>): ChatTurn | undefined {
  if (run.status !== 'failed' && run.status !== 'cancelled' && run.status !== 'interrupted') return undefined;
  const label = { failed: 'Run failed', cancelled: 'Run cancelled', interrupted: 'Run interrupted' }[
    run.status
  ];
  return {
    key: `notice:${run.id}`,
    role: 'notice',
    runId: run.id,
    items: [
      {
        kind: 'notice',
        tone: run.status === 'cancelled' ? 'info' : 'error',
        code: run.error?.type,
        text: run.error?.message ? `${label}: ${run.error.message}` : label,
      },
    ],
  };
}

/**
 * Persisted messages and live runs as one ordered list of turns. User messages are one turn each;
 * consecutive assistant messages of one run merge into one assistant turn, tool results attach to their
 * call by id. A live run's turn is placed right after its own user message, so a run that ended during
 * this visit (kept live, with its partial text) does not jump below later messages.
 */
export function buildTranscript(input: BuildTranscriptInput): ChatTurn[] {
  const liveRuns = input.liveRuns ?? new Map<string, LiveRun>();
  const runsById = new Map((input.runs ?? []).map((run) => [run.id, run]));
  const turns: ChatTurn[] = [];
  const toolsById = new Map<string, ToolItem>();
  const placedLive = new Set<string>();
  const placedNotices = new Set<string>();

  const liveTurn = (view: LiveRun): ChatTurn => {
    const ending = view.end
      ? endNotice({ id: view.runId, status: view.end.status, error: runErrorOf(view) })
      : undefined;
    return {
      key: `live:${view.runId}`,
      role: 'assistant',
      runId: view.runId,
      items: ending ? [...view.items, ...ending.items] : view.items,
      live: true,
    };
  };

  /** Closes a run's block: its live turn, or the notice of how it ended. */
  const closeRun = (runId: string | null): void => {
    if (runId === null) return;
    const view = liveRuns.get(runId);
    if (view && !placedLive.has(runId)) {
      placedLive.add(runId);
      turns.push(liveTurn(view));
      return;
    }
    const run = runsById.get(runId);
    const notice = run && !view && !placedNotices.has(runId) ? endNotice(run) : undefined;
    if (notice) {
      placedNotices.add(runId);
      turns.push(notice);
    }
  };

  let currentRun: string | null = null;
  for (const row of input.messages) {
    if (row.run_id !== currentRun) {
      closeRun(currentRun);
      currentRun = row.run_id;
    }
    if (row.run_id !== null && liveRuns.has(row.run_id) && row.step >= 1) continue;
    const message = row.message;
    if (message.role === 'user' && message.providerOptions?.troupe?.compaction) {
      turns.push({
        key: `msg:${row.seq}`,
        role: 'notice',
        runId: row.run_id,
        items: [
          {
            kind: 'notice',
            tone: 'info',
            code: 'context_compacted',
            text: compactionNotice(message.providerOptions.troupe.compaction.summarised),
          },
        ],
      });
    } else if (message.role === 'user') {
      turns.push({
        key: `msg:${row.seq}`,
        role: 'user',
        runId: row.run_id,
        items: [{ kind: 'text', text: textOf(message.content) }],
      });
    } else if (message.role === 'assistant') {
      const troupe = message.providerOptions?.troupe;
      const partial = troupe?.partial === true ? (troupe.run_status ?? 'cancelled') : undefined;
      const items = assistantItems(message.content, partial).map((item) => {
        if (item.kind !== 'tool') return item;
        const copy = { ...item };
        toolsById.set(copy.toolCallId, copy);
        return copy;
      });
      const last = turns.at(-1);
      if (last?.role === 'assistant' && !last.live && last.runId === row.run_id) last.items.push(...items);
      else turns.push({ key: `msg:${row.seq}`, role: 'assistant', runId: row.run_id, items });
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const result = part as { toolCallId: string; output: ToolResultOutput; providerOptions?: unknown };
        const call = toolsById.get(result.toolCallId);
        if (call) call.result = resultValue(result);
      }
    }
  }
  closeRun(currentRun);

  // Live runs whose user message has not been loaded yet: the message, then the stream, at the end.
  for (const view of liveRuns.values()) {
    if (placedLive.has(view.runId)) continue;
    const text = input.liveInputs?.get(view.runId);
    if (text !== undefined) {
      turns.push({
        key: `input:${view.runId}`,
        role: 'user',
        runId: view.runId,
        items: [{ kind: 'text', text }],
      });
    }
    turns.push(liveTurn(view));
  }
  return turns;
}
