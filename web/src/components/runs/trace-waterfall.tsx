import type { RunTrace, TraceNode } from '../../api/types.ts';
import { visibleSpans } from '../../../../src/core/trace/run-timeline.ts';
import { formatDuration } from '../../lib/format.ts';
import { clockEnd, formatMs, isWaitingToResume } from '../../lib/run-phase.ts';
import { axisTicks, nodeEnd, placeBar, type TimeWindow } from '../../lib/trace-model.ts';
import { StatusBadge } from '../common/status-badge.tsx';

export interface TraceWaterfallProps {
  trace: RunTrace;
  window: TimeWindow;
  now: number;
  selectedId: string;
  onSelect: (runId: string) => void;
}

const EDGE = {
  chat: { glyph: '●', label: 'root run' },
  resume: { glyph: '●', label: 'root run' },
  subagent: { glyph: '↳', label: 'subagent' },
  delegation: { glyph: '⇢', label: 'delegation' },
} as const;

function tokensText(node: TraceNode): string {
  const { own, children, subtree } = node.totals;
  if (children.total_tokens === 0) return `${own.total_tokens} tokens`;
  return `${subtree.total_tokens} tokens (own ${own.total_tokens} + children ${children.total_tokens})`;
}

function Bars({ node, window, now }: { node: TraceNode; window: TimeWindow; now: number }) {
  const { run } = node;
  const end = nodeEnd(node, now);
  const created = Date.parse(run.created_at);
  const started = run.started_at === null ? end : Date.parse(run.started_at);
  const queued = placeBar(window, created, started);
  const running = placeBar(window, started, end);
  // A run waiting to be resumed is frozen where it was handed back; its open spans stop there too.
  const frozen = clockEnd(run);
  const openEnd = frozen === null ? now : Date.parse(frozen);
  const spans = visibleSpans(node.timeline);
  return (
    <div className="trace-lane" aria-hidden="true">
      {started > created ? (
        <span className="bar bar-queued" style={{ left: `${queued.left}%`, width: `${queued.width}%` }} />
      ) : null}
      {run.started_at !== null ? (
        <span
          className={`bar bar-run status-${run.status}`}
          data-status={run.status}
          style={{ left: `${running.left}%`, width: `${running.width}%` }}
          title={`${node.display_name}: ${run.status}`}
        />
      ) : null}
      {spans.map((span) => {
        const from = Date.parse(span.started_at);
        const to = span.ended_at === null ? openEnd : Date.parse(span.ended_at);
        const place = placeBar(window, from, to);
        return (
          <span
            key={span.id}
            className={`bar bar-span span-${span.kind} span-${span.status}`}
            data-span-kind={span.kind}
            data-span-status={span.status}
            data-span-name={span.name}
            style={{ left: `${place.left}%`, width: `${place.width}%` }}
            title={`${span.kind === 'model' ? 'model call' : span.name} · ${formatMs(to - from)} · ${span.status}${span.note ? ` · ${span.note}` : ''}`}
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
  const spans = visibleSpans(node.timeline);
  const models = spans.filter((span) => span.kind === 'model').length;
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
          <StatusBadge status={run.status} resuming={resuming} />
          <span className="trace-facts">
            {run.started_at ? formatDuration(run.started_at, clockEnd(run), props.now) : 'queued'} ·{' '}
            {tokensText(node)} · {models} model call{models === 1 ? '' : 's'}, {tools} tool call
            {tools === 1 ? '' : 's'}
          </span>
        </div>
        <Bars node={node} window={props.window} now={props.now} />
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
        <span className="legend-item">↳ subagent (solid edge)</span>
        <span className="legend-item">⇢ delegation (dashed edge)</span>
      </p>
    </section>
  );
}
