export const RUN_EVENT_TYPES = [
  'metadata',
  'message_delta',
  'tool_call',
  'tool_result',
  'step',
  'subagent_update',
  'approval_required',
  'error',
  'end',
  'question_required',
  'artifact',
  'model_retry',
  'model_fallback',
] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/**
 * A persisted run event. `seq` is assigned by storage, strictly increasing per run with no gaps; it is
 * the SSE `id`, so a client that reconnects with `Last-Event-ID` gets exactly what it missed.
 */
export interface RunEvent {
  run_id: string;
  seq: number;
  type: RunEventType;
  payload: Record<string, unknown>;
  created_at: string;
}

export interface NewRunEvent {
  run_id: string;
  type: RunEventType;
  payload: Record<string, unknown>;
}
