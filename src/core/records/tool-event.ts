import type { RunEventBody, RunEventDraft } from './run-event.js';

/** The events a tool emits about its own call (an approval it waits for, questions, artifacts). */
export type ToolEventType = 'approval_required' | 'question_required' | 'artifact';

/** A tool's event as the tool gives it: type and fields, without the call's id, which the loop adds. */
export type ToolEventArgs = {
  [K in ToolEventType]: [type: K, payload: Omit<RunEventBody<K>, 'tool_call_id'>];
}[ToolEventType];

/** The tool's event with its call's id first, as the stream carries it. */
export function toolEvent(toolCallId: string, ...[type, payload]: ToolEventArgs): RunEventDraft {
  switch (type) {
    case 'approval_required':
      return { type, payload: { tool_call_id: toolCallId, ...payload } };
    case 'question_required':
      return { type, payload: { tool_call_id: toolCallId, ...payload } };
    case 'artifact':
      return { type, payload: { tool_call_id: toolCallId, ...payload } };
  }
}
