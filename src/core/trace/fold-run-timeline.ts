import type { RunEvent } from '../records/run-event.js';
import { emptyTimeline, type RunTimeline, type TimelineMark } from './run-timeline.js';
import { isOpen, type SpanStatus, type SpanUsage, type TimelineSpan } from './timeline-span.js';

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const count = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

function usageOf(value: unknown): SpanUsage | null {
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  const input = count(record.input_tokens);
  const output = count(record.output_tokens);
  return input === null && output === null ? null : { input_tokens: input ?? 0, output_tokens: output ?? 0 };
}

function endStatus(runStatus: string): SpanStatus {
  if (runStatus === 'completed') return 'done';
  if (runStatus === 'cancelled') return 'cancelled';
  if (runStatus === 'failed') return 'error';
  return 'interrupted';
}

function modelSpan(
  timeline: RunTimeline,
  startedAt: string,
  endedAt: string,
  step: number | null,
  status: SpanStatus,
  seq: number,
): TimelineSpan {
  return {
    kind: 'model',
    id: `model-${seq}`,
    step,
    name: timeline.call_model ?? timeline.model ?? 'model call',
    tool_call_id: null,
    started_at: startedAt,
    ended_at: endedAt,
    status,
    usage: null,
  };
}

function updateTool(
  spans: TimelineSpan[],
  id: string,
  change: (span: TimelineSpan) => TimelineSpan,
): boolean {
  const index = spans.findIndex((span) => span.kind === 'tool' && span.tool_call_id === id);
  const span = spans[index];
  if (span === undefined) return false;
  spans[index] = change(span);
  return true;
}

const ABORTED_SPAN: ReadonlySet<SpanStatus> = new Set(['cancelled', 'interrupted', 'error']);

/**
 * Whether the model call left open when an attempt stopped counts as one that never answered. An attempt's
 * `metadata` and a run's `end` carry the run's usage, whose `aborted_model_calls` the runtime counted (a call
 * refused before it reached the provider is not one, docs/usage.md): the open call is aborted when that count
 * is above the aborted calls already folded. Events written before they carried it fall back on `guess`.
 */
function abortedOneMore(spans: readonly TimelineSpan[], usage: unknown, guess: boolean): boolean {
  if (typeof usage !== 'object' || usage === null) return guess;
  const reported = count((usage as Record<string, unknown>).aborted_model_calls);
  if (reported === null) return guess;
  // A failed attempt the gateway retried or fell back from (it carries a note) is part of its call, not a call.
  const folded = spans.filter(
    (span) => span.kind === 'model' && span.note === undefined && ABORTED_SPAN.has(span.status),
  ).length;
  return reported > folded;
}

/** `rate_limited (HTTP 429)`: why a model attempt failed, from a `model_retry` or `model_fallback` payload. */
function failureNote(payload: { reason: string; status?: number | undefined }): string {
  return `${text(payload.reason) ?? 'failed'}${payload.status === undefined ? '' : ` (HTTP ${payload.status})`}`;
}

/** The model turn an event belongs to, for the types that say. */
function stepOf(event: RunEvent): number | null {
  return 'step' in event.payload ? count(event.payload.step) : null;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Folds one event; an event at or below `last_seq` changes nothing, so overlapping replays are harmless. */
export function foldRunTimeline(timeline: RunTimeline, event: RunEvent): RunTimeline {
  if (event.seq <= timeline.last_seq) return timeline;
  const next: RunTimeline = { ...timeline, last_seq: event.seq, last_event_at: event.created_at };
  const spans = [...timeline.spans];
  const at = event.created_at;
  const step = stepOf(event);
  const toolsBusy = spans.some((span) => span.kind === 'tool' && isOpen(span));
  // Each `metadata` opens an attempt's segment; every event stretches the current one.
  const current = timeline.segments.at(-1);
  if (event.type === 'metadata') {
    next.segments = [
      ...timeline.segments,
      { attempt: timeline.attempts + 1, started_at: at, last_event_at: at },
    ];
  } else if (current) {
    next.segments = [...timeline.segments.slice(0, -1), { ...current, last_event_at: at }];
  }
  switch (event.type) {
    case 'metadata':
      // A new attempt: a model call the previous one left open stopped at that attempt's last event.
      if (
        timeline.model_started_at !== null &&
        !toolsBusy &&
        abortedOneMore(spans, event.payload.usage, true)
      ) {
        const stoppedAt = timeline.last_event_at ?? timeline.model_started_at;
        spans.push(modelSpan(timeline, timeline.model_started_at, stoppedAt, null, 'interrupted', event.seq));
      }
      next.model = text(event.payload.model) ?? timeline.model;
      next.call_model = null;
      next.attempts = timeline.attempts + 1;
      next.model_started_at = at;
      next.model_streamed = false;
      next.ended = null;
      break;
    case 'message_delta':
      if (timeline.model_started_at !== null) next.model_streamed = true;
      break;
    case 'tool_call': {
      const id = text(event.payload.tool_call_id) ?? `seq-${event.seq}`;
      // The same call again: a resumed run executing a call its last attempt left without a result.
      const again = updateTool(spans, id, (span) => ({ ...span, status: 'running', ended_at: null }));
      if (again) {
        next.model_started_at = null;
        break;
      }
      if (timeline.model_started_at !== null) {
        const span = modelSpan(timeline, timeline.model_started_at, at, step, 'done', event.seq);
        spans.push({ ...span, usage: usageOf(event.payload.model_usage) });
        next.model_started_at = null;
      }
      next.call_model = null;
      spans.push({
        kind: 'tool',
        id: `tool-${id}`,
        step,
        name: text(event.payload.name) ?? 'tool',
        tool_call_id: id,
        started_at: at,
        ended_at: null,
        status: 'running',
        usage: null,
      });
      break;
    }
    // A question parks its call for a human exactly like an approval does.
    case 'approval_required':
    case 'question_required': {
      const id = text(event.payload.tool_call_id) ?? `seq-${event.seq}`;
      const name = event.type === 'approval_required' ? event.payload.name : null;
      const found = updateTool(spans, id, (span) => ({ ...span, status: 'awaiting_approval' }));
      if (!found) {
        spans.push({
          kind: 'tool',
          id: `tool-${id}`,
          step,
          name: text(name) ?? 'tool',
          tool_call_id: id,
          started_at: at,
          ended_at: null,
          status: 'awaiting_approval',
          usage: null,
        });
      }
      break;
    }
    case 'tool_result': {
      const id = text(event.payload.tool_call_id) ?? `seq-${event.seq}`;
      const status: SpanStatus = event.payload.is_error === true ? 'error' : 'done';
      const found = updateTool(spans, id, (span) => ({ ...span, status, ended_at: at }));
      if (!found) {
        spans.push({
          kind: 'tool',
          id: `tool-${id}`,
          step,
          name: text(event.payload.name) ?? 'tool',
          tool_call_id: id,
          started_at: at,
          ended_at: at,
          status,
          usage: null,
        });
      }
      break;
    }
    case 'step': {
      if (event.payload.resumed === true) {
        next.model_started_at = at;
        next.model_streamed = false;
        break;
      }
      if (timeline.model_started_at !== null) {
        spans.push(modelSpan(timeline, timeline.model_started_at, at, step, 'done', event.seq));
      }
      // The call's usage came with its first `tool_call` already; only older streams need it from here.
      const usage = usageOf(event.payload.usage);
      const index = spans.findLastIndex((span) => span.kind === 'model' && span.step === step);
      const target = spans[index];
      if (usage !== null && target?.usage === null) spans[index] = { ...target, usage };
      const more = (count(event.payload.tool_calls) ?? 0) > 0;
      next.model_started_at = more ? at : null;
      next.model_streamed = false;
      next.call_model = null;
      break;
    }
    case 'end': {
      const runStatus = text(event.payload.status) ?? 'completed';
      const closing = endStatus(runStatus);
      // After a last step nothing was asked of the model: only a call that was underway is recorded.
      const underway = abortedOneMore(
        spans,
        event.payload.usage,
        timeline.model_streamed || (closing !== 'done' && closing !== 'interrupted'),
      );
      if (timeline.model_started_at !== null && !toolsBusy && underway) {
        spans.push(modelSpan(timeline, timeline.model_started_at, at, null, closing, event.seq));
      }
      for (let index = 0; index < spans.length; index++) {
        const span = spans[index];
        if (span && isOpen(span)) spans[index] = { ...span, ended_at: at, status: closing };
        // A back-off the run's end cut short (a cancel, its wall time) ends with it.
        else if (span?.kind === 'wait' && span.ended_at !== null && span.ended_at > at)
          spans[index] = { ...span, ended_at: at, status: closing };
      }
      next.model_started_at = null;
      next.model_streamed = false;
      next.ended = { status: runStatus, at };
      break;
    }
    case 'model_retry': {
      // The failed attempt is a span of its own, the back-off another; the next attempt starts after it.
      const waitMs = count(event.payload.wait_ms) ?? 0;
      const attempt = count(event.payload.attempt);
      const note = `${failureNote(event.payload)}; retry ${attempt ?? ''} after ${seconds(waitMs)}`;
      if (timeline.model_started_at !== null) {
        spans.push({ ...modelSpan(timeline, timeline.model_started_at, at, step, 'error', event.seq), note });
      }
      const until = new Date(Date.parse(at) + waitMs).toISOString();
      spans.push({
        kind: 'wait',
        id: `wait-${event.seq}`,
        step,
        name: 'back-off',
        tool_call_id: null,
        started_at: at,
        ended_at: until,
        status: 'done',
        usage: null,
        note: `retry ${attempt ?? ''} of ${text(event.payload.model) ?? 'the model'} after ${seconds(waitMs)}`,
      });
      next.model_started_at = until;
      next.model_streamed = false;
      break;
    }
    case 'model_fallback': {
      const to = text(event.payload.to);
      const note = `${failureNote(event.payload)}; retries exhausted, falling back to ${to ?? 'the next model'}`;
      if (timeline.model_started_at !== null) {
        spans.push({ ...modelSpan(timeline, timeline.model_started_at, at, step, 'error', event.seq), note });
      }
      next.call_model = to;
      next.model_started_at = at;
      next.model_streamed = false;
      break;
    }
    case 'context_compacted': {
      // The summary's call ran from the model call's start to here; the call itself starts now.
      const { payload } = event;
      const note =
        `earlier turns summarised: ${count(payload.messages_summarised) ?? 0} messages, ` +
        `${count(payload.tokens_before) ?? 0} → ${count(payload.tokens_after) ?? 0} tokens ` +
        `(${text(payload.trigger) ?? 'threshold'}, window ${count(payload.context_window) ?? 0})`;
      const started = timeline.model_started_at ?? at;
      spans.push({
        ...modelSpan(timeline, started, at, step, 'done', event.seq),
        id: `compaction-${event.seq}`,
        name: `compaction (${text(payload.model) ?? 'model'})`,
        note,
      });
      if (timeline.model_started_at !== null) next.model_started_at = at;
      break;
    }
    case 'verification': {
      const { payload } = event;
      const mark: TimelineMark = {
        kind: 'verdict',
        seq: event.seq,
        at,
        run_id: payload.run_id,
        verdict: payload.verdict,
        reasons: payload.reasons,
        flags: payload.evidence.flags,
        final: payload.final,
        grader_run_id: payload.grader_run_id,
      };
      next.marks = [...(timeline.marks ?? []), mark];
      break;
    }
    case 'error':
    case 'subagent_update':
    case 'artifact':
      break;
  }
  next.spans = spans;
  return next;
}

export function foldRunTimelineEvents(
  events: readonly RunEvent[],
  from: RunTimeline = emptyTimeline(),
): RunTimeline {
  return events.reduce(foldRunTimeline, from);
}
