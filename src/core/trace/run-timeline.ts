import { isOpen, type TimelineSpan } from './timeline-span.js';

/*
 * A run's model calls and tool calls as timed spans, folded from its stored events. Events carry no
 * durations, so a span runs from the `created_at` of the event that opens it to the one that closes it:
 * a model call opens at `metadata` (or the `step` before it) and closes at its first `tool_call` or its
 * `step`; a tool call spans `tool_call` → `tool_result`. Pure and incremental, so the server folds stored
 * events and the console keeps folding the live ones (it imports these modules; keep them free of runtime imports).
 */

/** One attempt of a run: from its `metadata` to the last event it wrote (docs/usage.md). */
export interface AttemptSegment {
  attempt: number;
  started_at: string;
  last_event_at: string;
}

/**
 * A moment on a run's timeline that is not a span: a verdict on one of its children's results
 * (docs/verified-delegation.md#where-verdicts-are-visible), at the time of its `verification` event.
 */
export interface TimelineMark {
  kind: 'verdict';
  seq: number;
  at: string;
  /** The judged child run. */
  run_id: string;
  verdict: 'satisfied' | 'needs_revision' | 'failed' | 'unverified';
  reasons: string[];
  flags: string[];
  /** False when a revision follows. */
  final: boolean;
  grader_run_id: string | null;
}

export interface RunTimeline {
  /** The last event folded in: a live stream resumes after it. */
  last_seq: number;
  model: string | null;
  /** The model a fallback gave the call in progress (`model_fallback`), until its step ends. */
  call_model?: string | null;
  /** How many times a worker started the run (`metadata` events): more than one means it was resumed. */
  attempts: number;
  /** Each attempt's stretch of time; the gaps between them are when nobody worked on the run. */
  segments: AttemptSegment[];
  spans: TimelineSpan[];
  /** Verdicts on its children's results; absent until the first one. */
  marks?: TimelineMark[];
  /** When the model call now in progress started; null when none is. */
  model_started_at: string | null;
  /** Text streamed by that call (some text means the call was really underway). */
  model_streamed: boolean;
  last_event_at: string | null;
  ended: { status: string; at: string } | null;
}

export function emptyTimeline(): RunTimeline {
  return {
    last_seq: 0,
    model: null,
    attempts: 0,
    segments: [],
    spans: [],
    model_started_at: null,
    model_streamed: false,
    last_event_at: null,
    ended: null,
  };
}

/**
 * Whether a model call is underway as far as the events tell: one was due (the attempt started, or a step's
 * tools all returned) and nothing answered it yet, while no tool call runs. A new attempt or an `end` that
 * finds one records it as a call that never answered; a lost worker's usage counts it so (docs/usage.md).
 */
export function modelCallOpen(timeline: RunTimeline): boolean {
  return (
    timeline.ended === null &&
    timeline.model_started_at !== null &&
    !timeline.spans.some((span) => span.kind === 'tool' && isOpen(span))
  );
}

/**
 * The spans to draw: the folded ones plus the model call in progress, if any (open: `ended_at` null). A
 * model call is only in progress while no tool call is.
 */
export function visibleSpans(timeline: RunTimeline): TimelineSpan[] {
  const toolsBusy = timeline.spans.some((span) => span.kind === 'tool' && isOpen(span));
  if (timeline.model_started_at === null || toolsBusy || timeline.ended !== null) return timeline.spans;
  return [
    ...timeline.spans,
    {
      kind: 'model',
      id: 'model-open',
      step: null,
      name: timeline.model ?? 'model call',
      tool_call_id: null,
      started_at: timeline.model_started_at,
      ended_at: null,
      status: 'running',
      usage: null,
    },
  ];
}

export { addUsage, ownUsage, timelineUsage, zeroUsage, type UsageTotals } from './usage-totals.js';
