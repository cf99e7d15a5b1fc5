import type { RunTrace, TraceNode } from '../../api/types.ts';
import { visibleSpans } from '../../../../src/core/trace/run-timeline.ts';
import { formatDuration, tokenDetailText, tokensWithDetail } from '../../lib/format.ts';
import { VERDICT_LABELS, VERDICT_TONES, verdictFromMark } from '../../lib/verdict.ts';
import { VerdictBadge } from '../common/verdict-badge.tsx';
import { callsText, clockEnd, formatMs, isWaitingToResume, workerLostOf } from '../../lib/run-phase.ts';
import {
  axisTicks,
  nodeCallCounts,
  nodeEnd,
  placeBar,
  spanEnd,
  type TimeWindow,
} from '../../lib/trace-model.ts';
import { StatusBadge } from '../common/status-badge.tsx';

export interface TraceWaterfallProps {
  trace: RunTrace;
  window: TimeWindow;
  now: number;
  selectedId: string;
  onSelect: (runId: string) => void;
  /** A span's bar was clicked: open it in the inspector (the detail's tables do the same by keyboard). */
  onSelectSpan: (runId: string, spanId: string) => void;
}

const EDGE = {
  chat: { glyph: '●', label: 'root run' },
  resume: { glyph: '●', label: 'root run' },
  subagent: { glyph: '↳', label: 'subagent' },
  delegation: { glyph: '⇢', label: 'delegation' },
  grader: { glyph: '✓', label: 'grader' },
} as const;

function tokensText(node: TraceNode): string {
  const { own, children, subtree } = node.totals;
  if (children.total_tokens === 0) return tokensWithDetail(own.total_tokens, own);
  const detail = tokenDetailText(subtree);
  return `${subtree.total_tokens} tokens (own ${own.total_tokens} + children ${children.total_tokens}${detail ? `; ${detail}` : ''})`;
}

/**
 * The run's worked stretches: one per attempt (from its start to its last event, the last one to the run's
 * end), so the gaps between attempts — nobody worked on the run — show.
 */
function attemptStretches(node: TraceNode, end: number): { attempt: number; from: number; to: number }[] {
  const { run, timeline } = node;
  if (run.started_at === null) return [];
  const segments = timeline.segments;
  if (segments.length <= 1) return [{ attempt: 1, from: Date.parse(run.started_at), to: end }];
  return segments.map((segment, index) => ({
    attempt: segment.attempt,
    from:
      index === 0
        ? Math.min(Date.parse(run.started_at ?? segment.started_at), Date.parse(segment.started_at))
        : Date.parse(segment.started_at),
    to:
      index === segments.length - 1
        ? Math.max(end, Date.parse(segment.last_event_at))
        : Date.parse(segment.last_event_at),
  }));
}

function Bars({
  node,
  window,
  now,
  onSelectSpan,
}: {
  node: TraceNode;
  window: TimeWindow;
  now: number;
  onSelectSpan: (spanId: string) => void;
}) {
  const { run } = node;
  const end = nodeEnd(node, now);
  const created = Date.parse(run.created_at);
  const started = run.started_at === null ? end : Date.parse(run.started_at);
  const queued = placeBar(window, created, started);
  const stretches = attemptStretches(node, end);
  // A run nobody works on is frozen where that began (handed back, or its lease's last renewal).
  const frozen = clockEnd(run);
  const lost =
    workerLostOf(run) !== null && frozen !== null ? placeBar(window, Date.parse(frozen), now) : null;
  const spans = visibleSpans(node.timeline);
  return (
    <div className="trace-lane" aria-hidden="true">
      {started > created ? (
        <span className="bar bar-queued" style={{ left: `${queued.left}%`, width: `${queued.width}%` }} />
      ) : null}
      {stretches.map((stretch, index) => {
        const place = placeBar(window, stretch.from, stretch.to);
        const next = stretches[index + 1];
        const gap = next ? placeBar(window, stretch.to, next.from) : null;
        return (
          <span key={stretch.attempt}>
            <span
              className={`bar bar-run status-${run.status}`}
              data-status={run.status}
              data-attempt={stretch.attempt}
              style={{ left: `${place.left}%`, width: `${place.width}%` }}
              title={`${node.display_name}: ${run.status}${stretches.length > 1 ? ` · attempt ${stretch.attempt}` : ''}`}
            />
            {gap ? (
              <span
                className="bar bar-gap"
                style={{ left: `${gap.left}%`, width: `${gap.width}%` }}
                title={`No worker between attempts ${stretch.attempt} and ${next?.attempt ?? ''}`}
              />
            ) : null}
          </span>
        );
      })}
      {lost ? (
        <span
          className="bar bar-gap bar-lost"
          style={{ left: `${lost.left}%`, width: `${lost.width}%` }}
          title="Worker lost: nobody works on this run"
        />
      ) : null}
      {(node.timeline.marks ?? []).map((mark) => {
        const place = placeBar(window, Date.parse(mark.at), Date.parse(mark.at));
        return (
          <span
            key={mark.seq}
            className={`trace-mark verdict-${VERDICT_TONES[mark.verdict]}`}
            data-verdict={mark.verdict}
            style={{ left: `${place.left}%` }}
            title={`Verdict: ${VERDICT_LABELS[mark.verdict]}${mark.reasons.length > 0 ? ` · ${mark.reasons.join('; ')}` : ''}`}
          />
        );
      })}
      {/* The shortest bars last, so on top: a short call drawn at its minimum width under a long one next to
          it stays clickable. */}
      {spans
        .map((span) => ({ span, from: Date.parse(span.started_at), to: spanEnd(node, span, now) }))
        .sort((a, b) => b.to - b.from - (a.to - a.from))
        .map(({ span, from, to }) => {
          const place = placeBar(window, from, to);
          return (
            <span
              key={span.id}
              className={`bar bar-span span-${span.kind} span-${span.status}`}
              data-span-kind={span.kind}
              data-span-status={span.status}
              data-span-name={span.name}
              data-span-id={span.id}
              style={{ left: `${place.left}%`, width: `${place.width}%` }}
              title={`${span.kind === 'model' ? 'model call' : span.name} · ${formatMs(to - from)} · ${span.status}${span.note ? ` · ${span.note}` : ''}${span.kind === 'wait' ? '' : ' (click to inspect)'}`}
              onClick={span.kind === 'wait' ? undefined : () => onSelectSpan(span.id)}
            />
          );
        })}
    </div>
  );
}

function TraceRow({
  node,
  byId,
  props,
}: {
  node: TraceNode;
  byId: ReadonlyMap<string, TraceNode>;
  props: TraceWaterfallProps;
}) {
  const { run } = node;
  const edge = EDGE[run.run_type];
  const resuming = isWaitingToResume(run);
  const lost = workerLostOf(run);
  const spans = visibleSpans(node.timeline);
  const tools = spans.filter((span) => span.kind === 'tool').length;
  const selected = run.id === props.selectedId;
  const children = node.child_run_ids
    .map((id) => byId.get(id))
    .filter((child): child is TraceNode => !!child);
  return (
    <li>
      <article
        className={`trace-row edge-${run.run_type}${selected ? ' selected' : ''}`}
        aria-label={`${run.run_type} run of ${node.display_name}`}
        data-run-id={run.id}
        data-status={run.status}
        data-edge={run.run_type}
      >
        <div className="trace-label">
          <span className="edge-glyph" title={edge.label} aria-hidden="true">
            {edge.glyph}
          </span>
          <button
            type="button"
            className="trace-name"
            aria-pressed={selected}
            onClick={() => props.onSelect(run.id)}
          >
            {node.display_name}
            <span className="visually-hidden"> ({edge.label})</span>
          </button>
          <span className={`pill kind-${run.run_type}`}>{run.run_type}</span>
          <StatusBadge status={run.status} resuming={resuming} workerLost={lost} />
          <span className="trace-facts">
            {run.started_at ? formatDuration(run.started_at, clockEnd(run), props.now) : 'queued'} ·{' '}
            {tokensText(node)} · <span data-calls="own">{callsText(nodeCallCounts(node))}</span>, {tools} tool
            call{tools === 1 ? '' : 's'}
            {node.timeline.attempts > 1 ? ` · ${node.timeline.attempts} attempts` : ''}
          </span>
        </div>
        {(node.timeline.marks ?? []).length > 0 ? (
          <ul className="trace-verdicts" aria-label={`Verdicts on ${node.display_name}'s children`}>
            {(node.timeline.marks ?? []).map((mark) => (
              <li key={mark.seq} data-run-id={mark.run_id}>
                <span className="muted small">
                  {formatMs(Date.parse(mark.at) - props.window.start)} · on{' '}
                  {byId.get(mark.run_id)?.display_name ?? 'a child run'}:
                </span>
                <VerdictBadge verdict={verdictFromMark(mark)} />
              </li>
            ))}
          </ul>
        ) : null}
        <Bars
          node={node}
          window={props.window}
          now={props.now}
          onSelectSpan={(spanId) => props.onSelectSpan(run.id, spanId)}
        />
      </article>
      {children.length > 0 ? (
        <ul className="run-children">
          {children.map((child) => (
            <TraceRow key={child.run.id} node={child} byId={byId} props={props} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/**
 * Every run of the tree on one time axis: a bar per run (queued part lighter, coloured by status) with its
 * model calls and tool calls as thinner bars inside; subagents hang off a solid edge, delegations a dashed
 * one. Each row's name selects the run for the detail view.
 */
export function TraceWaterfall(props: TraceWaterfallProps) {
  const { trace, window } = props;
  const byId = new Map(trace.nodes.map((node) => [node.run.id, node]));
  const root = byId.get(trace.root_run_id);
  return (
    <section className="trace-waterfall" aria-label="Waterfall">
      <div className="trace-axis" aria-hidden="true">
        {axisTicks(window).map((tick) => (
          <span key={tick.percent} className="tick" style={{ left: `${tick.percent}%` }}>
            +{formatMs(tick.offsetMs)}
          </span>
        ))}
      </div>
      {root ? (
        <ul className="run-tree trace-tree" aria-label="Run tree">
          <TraceRow node={root} byId={byId} props={props} />
        </ul>
      ) : null}
      <p className="trace-legend muted small">
        <span className="legend-item">
          <span className="swatch span-model" aria-hidden="true" /> model call
        </span>
        <span className="legend-item">
          <span className="swatch span-tool" aria-hidden="true" /> tool call
        </span>
        <span className="legend-item">
          <span className="swatch span-wait" aria-hidden="true" /> back-off before a retry
        </span>
        <span className="legend-item">
          <span className="swatch bar-queued" aria-hidden="true" /> queued
        </span>
        <span className="legend-item">
          <span className="swatch bar-gap" aria-hidden="true" /> no worker (between attempts, or lost)
        </span>
        <span className="legend-item">
          <span className="swatch trace-mark" aria-hidden="true" /> verdict on a child&apos;s result
        </span>
        <span className="legend-item">↳ subagent (solid edge)</span>
        <span className="legend-item">⇢ delegation (dashed edge)</span>
      </p>
    </section>
  );
}
