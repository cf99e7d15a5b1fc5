import { useState } from 'react';
import { isTerminalStatus } from '../../api/types.ts';
import { tokenDetailText } from '../../lib/format.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useNow } from '../../hooks/use-now.ts';
import { useRunTrace } from '../../hooks/use-run-trace.ts';
import { paths } from '../../lib/routes.ts';
import { callsText, isStalled } from '../../lib/run-phase.ts';
import { nodeCallCounts, sumCallCounts, traceWindow } from '../../lib/trace-model.ts';
import { AppLink } from '../common/app-link.tsx';
import { ErrorMessage } from '../common/error-message.tsx';
import { TraceDetail } from './trace-detail.tsx';
import { TraceWaterfall } from './trace-waterfall.tsx';

/**
 * The trace of one run's tree: a waterfall of every run with its model and tool calls on a shared time
 * axis, live while anything runs (and resumed after a reload), and the selected run in detail.
 */
export function TracePage({ runId }: { runId: string }) {
  const { trace, error, streaming, reload } = useRunTrace(runId);
  const ticking =
    trace?.nodes.some((node) => !isTerminalStatus(node.run.status) && !isStalled(node.run)) ?? false;
  const now = useNow(ticking, 500);
  const selected = trace?.nodes.find((node) => node.run.id === runId) ?? trace?.nodes[0] ?? null;
  const root = trace?.nodes.find((node) => node.run.id === trace.root_run_id) ?? null;
  // The span open in the inspector: a run's span id, kept with its run so another run's span never opens.
  const [span, setSpan] = useState<{ runId: string; spanId: string } | null>(null);
  const selectedSpanId = span !== null && span.runId === selected?.run.id ? span.spanId : null;

  return (
    <main className="page trace-page">
      <div className="page-title">
        <h1>Trace{root ? ` · ${root.display_name}` : ''}</h1>
        <div className="button-row">
          {streaming.length > 0 ? (
            <span className="live-pill" role="status">
              <span aria-hidden="true">●</span> Live · following {streaming.length} run
              {streaming.length === 1 ? '' : 's'}
            </span>
          ) : null}
          <button type="button" onClick={reload}>
            Refresh
          </button>
          <AppLink to={paths.runs()} className="button-link">
            All runs
          </AppLink>
        </div>
      </div>
      <ErrorMessage error={error} context="Could not load the trace" />
      {!trace && !error ? <p role="status">Loading…</p> : null}
      {trace && root ? (
        <p className="muted trace-summary">
          {trace.nodes.length} run{trace.nodes.length === 1 ? '' : 's'} · {root.totals.subtree.total_tokens}{' '}
          tokens in total ({root.totals.own.total_tokens} by the root, {root.totals.children.total_tokens} by
          its children
          {tokenDetailText(root.totals.subtree) ? `; ${tokenDetailText(root.totals.subtree)}` : ''}) ·{' '}
          <span data-calls="subtree">{callsText(sumCallCounts(trace.nodes.map(nodeCallCounts)))}</span>
        </p>
      ) : null}
      {trace ? (
        <TraceWaterfall
          trace={trace}
          window={traceWindow(trace, now)}
          now={now}
          selectedId={selected?.run.id ?? ''}
          onSelect={(id) => navigate(paths.trace(id), { replace: true })}
          onSelectSpan={(id, spanId) => {
            setSpan({ runId: id, spanId });
            if (id !== selected?.run.id) navigate(paths.trace(id), { replace: true });
          }}
        />
      ) : null}
      {trace && selected ? (
        <TraceDetail
          key={selected.run.id}
          trace={trace}
          node={selected}
          now={now}
          onChanged={reload}
          selectedSpanId={selectedSpanId}
          onSelectSpan={(spanId) => setSpan(spanId === null ? null : { runId: selected.run.id, spanId })}
        />
      ) : null}
    </main>
  );
}
