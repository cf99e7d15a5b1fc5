import type { RunEvent, RunStatus, RunTrace, TimelineSpan, TraceNode } from '../api/types.ts';
import { isTerminalStatus } from '../api/types.ts';
// The same fold the server uses for stored events, applied here to the live ones (a pure core module).
import { foldRunTimeline } from '../../../src/core/trace/fold-run-timeline.ts';
import { addUsage, ownUsage, visibleSpans, zeroUsage } from '../../../src/core/trace/run-timeline.ts';
import { clockEnd, isStalled, type CallCounts } from './run-phase.ts';
import type { PanelEntry } from './subagent-panel.ts';

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Sums every subtree again (children come after their parent in `nodes`). */
export function withTotals(nodes: readonly TraceNode[]): TraceNode[] {
  const next = nodes.map((node) => ({ ...node, totals: { ...node.totals } }));
  const byId = new Map(next.map((node) => [node.run.id, node]));
  for (let index = next.length - 1; index >= 0; index--) {
    const node = next[index];
    if (!node) continue;
    const own = ownUsage(node.run.usage, node.timeline);
    const children = node.child_run_ids
      .map((id) => byId.get(id)?.totals.subtree ?? zeroUsage())
      .reduce(addUsage, zeroUsage());
    node.totals = { own, children, subtree: addUsage(own, children) };
  }
  return next;
}

/**
 * One live event of one run: its spans move on, and its status follows what the stream says (a started
 * run runs, an approval parks it, `end` finishes it) until the next snapshot brings the stored row.
 */
export function applyTraceEvent(trace: RunTrace, runId: string, event: RunEvent): RunTrace {
  let changed = false;
  const nodes = trace.nodes.map((node) => {
    if (node.run.id !== runId || event.seq <= node.timeline.last_seq) return node;
    changed = true;
    const run = { ...node.run };
    if (event.type === 'metadata' && !isTerminalStatus(run.status)) {
      run.status = 'running';
      run.started_at ??= event.created_at;
    } else if (event.type === 'approval_required' && !isTerminalStatus(run.status)) {
      run.status = 'input_required';
    } else if (event.type === 'tool_result' && run.status === 'input_required') {
      run.status = 'running';
    } else if (event.type === 'end') {
      run.status = (str(event.payload.status) ?? 'completed') as RunStatus;
      run.finished_at ??= event.created_at;
      if (event.payload.usage) run.usage = event.payload.usage;
    }
    run.updated_at = event.created_at;
    return { ...node, run, timeline: foldRunTimeline(node.timeline, event) };
  });
  return changed ? { ...trace, nodes: withTotals(nodes) } : trace;
}

/** A fresh snapshot, keeping any node's live timeline that is ahead of it (a stream saw more already). */
export function mergeSnapshot(current: RunTrace | null, next: RunTrace): RunTrace {
  if (current?.root_run_id !== next.root_run_id) return next;
  const live = new Map(current.nodes.map((node) => [node.run.id, node]));
  const nodes = next.nodes.map((node) => {
    const seen = live.get(node.run.id);
    if (!seen || seen.timeline.last_seq <= node.timeline.last_seq) return node;
    return { ...node, timeline: seen.timeline, run: isTerminalStatus(node.run.status) ? node.run : seen.run };
  });
  return { ...next, nodes: withTotals(nodes) };
}

/** Events after which the tree itself may have changed (a child appeared or ended): read a snapshot. */
export function changesTree(event: RunEvent): boolean {
  return event.type === 'subagent_update' || event.type === 'end';
}

export function isActiveNode(node: TraceNode): boolean {
  return !isTerminalStatus(node.run.status);
}

/** Runs worth a live stream, most useful first: the root, then the newest active ones. */
export function streamCandidates(trace: RunTrace, max: number): string[] {
  const active = trace.nodes.filter(isActiveNode);
  const root = active.filter((node) => node.run.id === trace.root_run_id);
  const others = active
    .filter((node) => node.run.id !== trace.root_run_id)
    .sort((a, b) => b.run.created_at.localeCompare(a.run.created_at));
  return [...root, ...others].slice(0, max).map((node) => node.run.id);
}

const ms = (iso: string): number => Date.parse(iso);

/** Where a run stops on the time axis: its end, its pause while it waits to be resumed, or now. */
export function nodeEnd(node: TraceNode, now: number): number {
  const end = clockEnd(node.run);
  return end === null ? now : ms(end);
}

export interface TimeWindow {
  start: number;
  end: number;
}

/** The shared axis: from the first run's creation to the last end (now while anything runs). */
export function traceWindow(trace: RunTrace, now: number): TimeWindow {
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const node of trace.nodes) {
    start = Math.min(start, ms(node.run.created_at));
    end = Math.max(end, nodeEnd(node, now));
    for (const span of node.timeline.spans)
      if (span.ended_at !== null) end = Math.max(end, ms(span.ended_at));
  }
  if (!Number.isFinite(start)) return { start: now, end: now + 1 };
  return { start, end: Math.max(end, start + 1) };
}

/** Left offset and width in percent of the window; at least a sliver so a 0 ms span stays visible. */
export function placeBar(window: TimeWindow, from: number, to: number): { left: number; width: number } {
  const total = window.end - window.start;
  const left = ((Math.max(from, window.start) - window.start) / total) * 100;
  const right = ((Math.min(Math.max(to, from), window.end) - window.start) / total) * 100;
  return { left: Math.min(left, 99.6), width: Math.max(right - left, 0.4) };
}

/** Axis ticks: offsets from the start at quarters of the window. */
export function axisTicks(window: TimeWindow): { percent: number; offsetMs: number }[] {
  return [0, 25, 50, 75, 100].map((percent) => ({
    percent,
    offsetMs: ((window.end - window.start) * percent) / 100,
  }));
}

/** A run's calls: its usage's (the server's figure, live), and the call its timeline shows underway. */
export function nodeCallCounts(node: TraceNode): CallCounts {
  const open = visibleSpans(node.timeline).some((span) => span.kind === 'model' && span.ended_at === null);
  return {
    settled: node.totals.own.model_calls,
    aborted: node.totals.own.aborted_model_calls,
    inProgress: open && !isStalled(node.run) ? 1 : 0,
    stopped: open && isStalled(node.run) ? 1 : 0,
  };
}

export function sumCallCounts(counts: readonly CallCounts[]): CallCounts {
  return counts.reduce(
    (sum, next) => ({
      settled: sum.settled + next.settled,
      aborted: sum.aborted + next.aborted,
      inProgress: sum.inProgress + next.inProgress,
      stopped: (sum.stopped ?? 0) + (next.stopped ?? 0),
    }),
    { settled: 0, aborted: 0, inProgress: 0, stopped: 0 },
  );
}

/**
 * The step a span belongs to, for its inspection (`GET …/steps/{step}`): its own, or — for a model call
 * that never answered, which has none — the step after the last one before it.
 */
export function stepOfSpan(spans: readonly TimelineSpan[], span: TimelineSpan): number {
  if (span.step !== null) return span.step;
  let last = 0;
  for (const other of spans) {
    if (other.id === span.id) break;
    if (other.step !== null) last = Math.max(last, other.step);
  }
  return last + 1;
}

/** Where an open span stops on screen: now, or where its run's clock stopped (handed back, worker lost). */
export function spanEnd(node: TraceNode, span: TimelineSpan, now: number): number {
  if (span.ended_at !== null) return ms(span.ended_at);
  const frozen = clockEnd(node.run);
  return frozen === null ? now : Math.max(ms(frozen), ms(span.started_at));
}

/**
 * The trace's children as status panel entries, so a transcript in the trace names them (and shows their
 * status) as the chat does, never by a run id prefix.
 */
export function traceChildEntries(trace: RunTrace): PanelEntry[] {
  return trace.nodes
    .filter((node) => node.parent_run_id !== null)
    .map((node) => ({
      run_id: node.run.id,
      kind: node.run.run_type === 'delegation' ? 'delegation' : 'subagent',
      slug: node.agent.slug,
      name: node.display_name,
      status: node.run.status,
      child_thread_id: node.run.thread_id,
      child_conversation_id: node.run.conversation_id,
      parent_run_id: node.parent_run_id,
      parent_tool_call_id: node.run.input.parent_tool_call_id ?? null,
      description: node.run.input.message,
      progress: null,
      result: isTerminalStatus(node.run.status) ? { output: node.run.output, error: node.run.error } : null,
      created_at: node.run.created_at,
      started_at: node.run.started_at,
      finished_at: node.run.finished_at,
      usage: node.run.usage,
      updated_at: node.run.updated_at,
      worker_lost: node.run.worker_lost,
      latest: null,
      liveSeq: 0,
      pendingText: '',
    }));
}
