import { useMemo, useState } from 'react';
import { isTerminalStatus, type RunTrace, type TimelineSpan, type TraceNode } from '../../api/types.ts';
import { visibleSpans } from '../../../../src/core/trace/run-timeline.ts';
import { useLiveThread } from '../../hooks/use-live-thread.ts';
import { useSession } from '../../hooks/use-session.ts';
import { formatDuration, formatTime, modelLabel } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import {
  callsText,
  clockEnd,
  formatMs,
  isWaitingToResume,
  workerLostOf,
  workerLostText,
} from '../../lib/run-phase.ts';
import { entryLabels } from '../../lib/panel-groups.ts';
import { nodeCallCounts, spanEnd, traceChildEntries } from '../../lib/trace-model.ts';
import { AppLink } from '../common/app-link.tsx';
import { CopyButton } from '../common/copy-button.tsx';
import { ErrorMessage } from '../common/error-message.tsx';
import { MarkdownText } from '../common/markdown-text.tsx';
import { StatusBadge } from '../common/status-badge.tsx';
import { BudgetBars } from '../common/budget-bars.tsx';
import { ChatTranscript } from '../chat/chat-transcript.tsx';
import { childMaps, EMPTY_TRANSCRIPT_CONTEXT, TranscriptContext } from '../chat/transcript-context.ts';
import { SpanInspector } from './span-inspector.tsx';
import { ForkForm } from './fork-form.tsx';
import { SpanTables, TokenTotalsTable } from './trace-span-tables.tsx';

function IdRow({ label, value }: { label: string; value: string | null }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>
        {value === null ? (
          '—'
        ) : (
          <>
            <code>{value}</code> <CopyButton value={value} label={label.toLowerCase()} />
          </>
        )}
      </dd>
    </>
  );
}

/**
 * One run of the trace: lineage, timings, usage per model call, tool calls (each opens in the span
 * inspector), output and transcript, its children named as the chat names them.
 */
export function TraceDetail({
  trace,
  node,
  now,
  onChanged,
  selectedSpanId,
  onSelectSpan,
}: {
  trace: RunTrace;
  node: TraceNode;
  now: number;
  onChanged: () => void;
  selectedSpanId: string | null;
  onSelectSpan: (spanId: string | null) => void;
}) {
  const { api } = useSession();
  const { run } = node;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [forkStep, setForkStep] = useState<number | null>(null);
  const active = !isTerminalStatus(run.status);
  const resuming = isWaitingToResume(run);
  const lost = workerLostOf(run);
  const stalled = lost ? 'lost' : resuming ? 'resuming' : null;
  const thread = useLiveThread(run.conversation_id, run.id, active, run.id);
  const spans = visibleSpans(node.timeline);
  const models = spans.filter((span) => span.kind === 'model');
  const tools = spans.filter((span) => span.kind === 'tool');
  const spanMs = (span: TimelineSpan) => spanEnd(node, span, now) - Date.parse(span.started_at);
  const selectedSpan = spans.find((span) => span.id === selectedSpanId) ?? null;
  // The children of the trace, named as the chat names them, for the transcript's cards.
  const transcriptContext = useMemo(() => {
    const entries = traceChildEntries(trace);
    return { ...EMPTY_TRANSCRIPT_CONTEXT, ...childMaps(entries, entryLabels(entries)) };
  }, [trace]);
  const waits = spans.filter((span) => span.kind === 'wait');

  const cancel = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api.cancelRun(run.id);
      onChanged();
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="trace-detail" aria-label={`Run ${node.display_name}`} data-run-id={run.id}>
      <header>
        <h2>{node.display_name}</h2>
        <span className={`pill kind-${run.run_type}`}>{run.run_type}</span>
        <StatusBadge status={run.status} resuming={resuming} workerLost={lost} />
        {active && run.status !== 'cancel_requested' ? (
          <button type="button" className="danger small" disabled={busy} onClick={() => void cancel()}>
            Cancel run
          </button>
        ) : null}
        {active ? null : (
          <button type="button" className="small" onClick={() => setForkStep(0)}>
            Fork from the start
          </button>
        )}
      </header>
      {run.forked_from ? (
        <p className="notice" role="note" data-forked-from={run.forked_from.run_id}>
          Forked from <AppLink to={paths.trace(run.forked_from.run_id)}>another run</AppLink> after its step{' '}
          {run.forked_from.step}.{' '}
          <AppLink to={paths.compare(run.forked_from.run_id, run.id)}>Compare with source</AppLink>
        </p>
      ) : null}
      <ErrorMessage error={error} context="Could not cancel" />
      {lost ? (
        <p className="notice" role="status" data-phase="worker-lost">
          No process works on this run: its worker stopped renewing its lease at{' '}
          {new Date(lost.since).toLocaleTimeString('en-GB', { hour12: false })}, and its clock stopped there.{' '}
          {workerLostText(lost, now).replace(/^w/, 'W')}.
        </p>
      ) : null}
      {resuming ? (
        <p className="notice" role="status">
          Waiting to be resumed: the worker that ran it stopped (a restart, or it was handed back). Its clock
          is paused until a worker picks it up.
        </p>
      ) : null}
      <div className="trace-detail-grid">
        <section aria-label="Lineage">
          <h3>Lineage</h3>
          <dl className="meta id-list">
            <IdRow label="Run id" value={run.id} />
            <IdRow label="Root run id" value={run.root_run_id} />
            <IdRow label="Parent run id" value={run.created_by_run_id} />
            <IdRow label="Parent tool call id" value={run.input.parent_tool_call_id ?? null} />
            <IdRow label="Thread id" value={run.thread_id} />
            <IdRow label="Conversation id" value={run.conversation_id} />
          </dl>
          {run.run_type === 'chat' || run.run_type === 'resume' ? (
            <p className="small">
              <AppLink to={paths.chat(run.conversation_id)}>Open the conversation</AppLink>
            </p>
          ) : null}
        </section>
        <section aria-label="Timings and usage">
          <h3>Timings</h3>
          <dl className="meta">
            <dt>Created</dt>
            <dd>{formatTime(run.created_at)}</dd>
            <dt>Started</dt>
            <dd>{formatTime(run.started_at)}</dd>
            <dt>Finished</dt>
            <dd>{formatTime(run.finished_at)}</dd>
            <dt>Queued</dt>
            <dd>{run.started_at ? formatDuration(run.created_at, run.started_at) : 'still queued'}</dd>
            <dt>Duration</dt>
            <dd>
              {run.started_at ? formatDuration(run.started_at, clockEnd(run), now) : '—'}
              {resuming || lost ? ' (paused)' : ''}
            </dd>
            <dt>Model</dt>
            <dd>{modelLabel(node.timeline.model ?? run.model_spec)}</dd>
            <dt>Attempts</dt>
            <dd>{node.timeline.attempts}</dd>
            <dt>Model calls</dt>
            <dd data-calls="own">{callsText(nodeCallCounts(node))}</dd>
            {waits.length > 0 ? (
              <>
                <dt>Model retries</dt>
                <dd>
                  {waits.length}, {formatMs(waits.reduce((sum, span) => sum + spanMs(span), 0))} waited
                </dd>
              </>
            ) : null}
          </dl>
          {node.budget ? (
            <>
              <h3>Budget</h3>
              <BudgetBars budget={node.budget} label={node.display_name} />
              {run.error?.refusal?.code === 'budget_exhausted' ? (
                <p className="result result-error" role="note">
                  <code className="error-code">{run.error.refusal.code}</code> {run.error.refusal.reason}
                </p>
              ) : null}
            </>
          ) : null}
          <h3>Tokens</h3>
          <TokenTotalsTable node={node} />
        </section>
      </div>
      <SpanTables
        models={models}
        tools={tools}
        active={active}
        stalled={stalled}
        spanMs={spanMs}
        selectedSpanId={selectedSpanId}
        onSelectSpan={onSelectSpan}
        onFork={active ? undefined : setForkStep}
      />
      {forkStep !== null ? (
        <ForkForm key={forkStep} run={run} step={forkStep} onClose={() => setForkStep(null)} />
      ) : null}
      {selectedSpan ? (
        <SpanInspector
          key={selectedSpan.id}
          node={node}
          span={selectedSpan}
          now={now}
          onClose={() => onSelectSpan(null)}
        />
      ) : null}
      {run.error ? (
        <p className={run.status === 'cancelled' ? 'run-notice tone-info' : 'error-message'}>
          <code className="error-code">{run.error.type}</code> {run.error.message}
        </p>
      ) : null}
      {run.output ? (
        <section aria-label="Final output" className="trace-output">
          <h3>Final output</h3>
          <MarkdownText text={run.output} />
        </section>
      ) : null}
      <section aria-label="Transcript" className="trace-transcript">
        <h3>Transcript</h3>
        <ErrorMessage error={thread.error} context="Could not load the transcript" />
        <TranscriptContext.Provider value={transcriptContext}>
          <ChatTranscript
            turns={thread.turns}
            activeRunId={thread.view && !thread.view.end ? run.id : null}
            label={`${node.display_name} transcript`}
            userLabel={run.created_by_run_id ? 'Task from the parent' : 'You'}
          />
        </TranscriptContext.Provider>
      </section>
    </section>
  );
}
