/** A timed span of a run's timeline: a model call, a tool call, or a back-off (docs/usage.md). */

export type SpanStatus = 'running' | 'done' | 'error' | 'awaiting_approval' | 'cancelled' | 'interrupted';

export interface SpanUsage {
  input_tokens: number;
  output_tokens: number;
}

export interface TimelineSpan {
  /** `wait`: a model call's back-off between a failed attempt and its retry (`model_retry`). */
  kind: 'model' | 'tool' | 'wait';
  /** Unique within the run. */
  id: string;
  step: number | null;
  /** The model's label, or the tool's name. */
  name: string;
  tool_call_id: string | null;
  started_at: string;
  ended_at: string | null;
  status: SpanStatus;
  /** Model calls: the tokens of that call, from its first `tool_call` (or its `step`) event. */
  usage: SpanUsage | null;
  /** Why a model attempt failed and what came next (a retry, a fallback), or why a wait waits. */
  note?: string;
}

export const isOpen = (span: TimelineSpan): boolean => span.ended_at === null;
