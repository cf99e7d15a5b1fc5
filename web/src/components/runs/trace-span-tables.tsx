import type { TimelineSpan, TraceNode } from '../../api/types.ts';
import { modelLabel } from '../../lib/format.ts';
import { formatMs } from '../../lib/run-phase.ts';
import { DataTable, type DataColumn } from '../common/data-table.tsx';

export type Stalled = 'lost' | 'resuming' | null;

/** A span left open by a worker that is gone is not in progress: nobody works on it (docs/usage.md). */
function spanStatusText(span: TimelineSpan, stalled: Stalled): string {
  if (span.status === 'running')
    return stalled === 'lost' ? 'stopped: worker lost' : stalled === 'resuming' ? 'stopped' : 'in progress';
  if (span.status === 'awaiting_approval') return 'awaiting approval';
  return span.status;
}

const SCOPES = ['own', 'children', 'subtree'] as const;
const SCOPE_NAMES = { own: 'This run', children: 'Its children', subtree: 'Subtree' } as const;

/** Tokens and calls of the run, of its children and of its whole subtree. */
export function TokenTotalsTable({ node }: { node: TraceNode }) {
  const totals = (scope: (typeof SCOPES)[number]) => node.totals[scope];
  return (
    <DataTable
      className="compact"
      label="Token totals"
      rows={SCOPES}
      rowKey={(scope) => scope}
      columns={[
        { header: 'Scope', rowHeader: true, cell: (scope) => SCOPE_NAMES[scope] },
        { header: 'In', cell: (scope) => totals(scope).input_tokens },
        { header: 'Out', cell: (scope) => totals(scope).output_tokens },
        { header: 'Total', cell: (scope) => totals(scope).total_tokens },
        { header: 'Calls answered', cell: (scope) => totals(scope).model_calls },
        { header: 'Aborted', cell: (scope) => totals(scope).aborted_model_calls },
      ]}
    />
  );
}

export interface SpanTablesProps {
  models: TimelineSpan[];
  tools: TimelineSpan[];
  active: boolean;
  stalled: Stalled;
  spanMs: (span: TimelineSpan) => number;
  selectedSpanId: string | null;
  onSelectSpan: (spanId: string | null) => void;
  /** Opens the fork form after a model call's step (docs/effects-and-forks.md#fork); none while the run is active. */
  onFork?: ((step: number) => void) | undefined;
}

/** The run's model calls and tool calls, each with an Inspect button that opens the span inspector. */
export function SpanTables({
  models,
  tools,
  active,
  stalled,
  spanMs,
  selectedSpanId,
  onSelectSpan,
  onFork,
}: SpanTablesProps) {
  const status: DataColumn<TimelineSpan> = {
    header: 'Status',
    cell: (span) => spanStatusText(span, stalled),
  };
  const took: DataColumn<TimelineSpan> = { header: 'Took', cell: (span) => formatMs(spanMs(span)) };
  const inspect: DataColumn<TimelineSpan> = {
    header: 'Inspect',
    actions: true,
    cell: (span) => (
      <button
        type="button"
        className="small"
        aria-pressed={span.id === selectedSpanId}
        aria-label={`Inspect ${span.kind === 'model' ? 'model call' : span.name} ${span.step ?? ''}`.trim()}
        onClick={() => onSelectSpan(span.id === selectedSpanId ? null : span.id)}
      >
        Inspect
      </button>
    ),
  };
  return (
    <section aria-label="Model calls">
      <SpanTable
        title="Model calls"
        spans={models}
        none={active ? 'None yet.' : 'None: this run made no model call.'}
        columns={[
          { header: 'Step', cell: (span) => span.step ?? '—' },
          status,
          took,
          { header: 'Tokens in', cell: (span) => span.usage?.input_tokens ?? '—' },
          { header: 'Tokens out', cell: (span) => span.usage?.output_tokens ?? '—' },
          { header: 'Model', cell: (span) => modelLabel(span.name) },
          { header: 'Note', cell: (span) => span.note ?? '' },
          inspect,
          ...(onFork
            ? [
                {
                  header: 'Fork',
                  actions: true,
                  cell: (span: TimelineSpan) =>
                    span.step === undefined || span.step === null || span.status === 'running' ? null : (
                      <button
                        type="button"
                        className="small"
                        aria-label={`Fork from step ${span.step}`}
                        onClick={() => onFork(span.step ?? 0)}
                      >
                        Fork from here
                      </button>
                    ),
                },
              ]
            : []),
        ]}
      />
      <SpanTable
        title="Tool calls"
        spans={tools}
        none={active ? 'None yet.' : 'None: this run called no tool.'}
        columns={[{ header: 'Tool', cell: (span) => <code>{span.name}</code> }, status, took, inspect]}
      />
    </section>
  );
}

/** One kind of span under its count, or what to say when there is none. */
function SpanTable({
  title,
  spans,
  none,
  columns,
}: {
  title: string;
  spans: TimelineSpan[];
  none: string;
  columns: DataColumn<TimelineSpan>[];
}) {
  return (
    <>
      <h3>
        {title} ({spans.length})
      </h3>
      {spans.length === 0 ? (
        <p className="empty">{none}</p>
      ) : (
        <DataTable
          className="compact"
          label={`${title} of this run`}
          rows={spans}
          rowKey={(span) => span.id}
          rowProps={(span) => ({ 'data-span-status': span.status, 'data-span-id': span.id })}
          columns={columns}
        />
      )}
    </>
  );
}
