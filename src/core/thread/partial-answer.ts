import { TROUPE_OPTIONS_KEY, type AssistantChatMessage, type ChatMessage } from './chat-message.js';
import type { RunEvent, RunEventType } from '../records/run-event.js';
import type { TerminalRunStatus } from '../records/run.js';

/**
 * Events after which no streamed text can belong to a model call still in progress: an attempt starts
 * (`metadata`), the model's turn was checkpointed and its calls or the step were reported, or the model
 * call dropped what its failed attempt had streamed (`model_retry`, `model_fallback`). Other events
 * (`subagent_update` of a background child, `error`) may land in the middle of a model call.
 */
const MODEL_CALL_BOUNDARIES: ReadonlySet<RunEventType> = new Set([
  'metadata',
  'tool_call',
  'tool_result',
  'step',
  'model_retry',
  'model_fallback',
]);

/**
 * Text the run streamed (`message_delta`) since the start of its last, unfinished model call. `carried` is
 * the result for the events before these, so a long run's events can be read page by page.
 */
export function unfinishedModelText(events: readonly RunEvent[], carried = ''): string {
  let text = carried;
  for (const event of events) {
    if (MODEL_CALL_BOUNDARIES.has(event.type)) text = '';
    else if (event.type === 'message_delta') text += event.payload.text;
  }
  return text;
}

/** The marker of a partial answer, kept under the message's `providerOptions` (providers ignore foreign keys). */
export interface PartialAnswerMarker {
  partial: true;
  /** How the run that was streaming this answer ended. */
  run_status: Exclude<TerminalRunStatus, 'completed'>;
}

export const PARTIAL_ANSWER_KEY = TROUPE_OPTIONS_KEY;

/**
 * What a run said before it ended mid-answer, as an ordinary assistant text turn: the next run sends it to
 * the model like any other turn, while readers (API, console) can tell it was cut off.
 */
export function partialAnswerMessage(
  text: string,
  runStatus: PartialAnswerMarker['run_status'],
): AssistantChatMessage {
  const marker: PartialAnswerMarker = { partial: true, run_status: runStatus };
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    providerOptions: { [PARTIAL_ANSWER_KEY]: { ...marker } },
  };
}

/** The marker of a message stored by `partialAnswerMessage`, if it is one. */
export function partialAnswerMarker(message: ChatMessage): PartialAnswerMarker | undefined {
  if (message.role !== 'assistant') return undefined;
  const marker = message.providerOptions?.[PARTIAL_ANSWER_KEY];
  if (marker?.partial !== true || typeof marker.run_status !== 'string') return undefined;
  return { partial: true, run_status: marker.run_status as PartialAnswerMarker['run_status'] };
}
