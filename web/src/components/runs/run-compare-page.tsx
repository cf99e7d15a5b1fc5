import type { ComparedRun, RunComparison } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { useSession } from '../../hooks/use-session.ts';
import { modelLabel } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import { formatMs } from '../../lib/run-phase.ts';
import { AppLink } from '../common/app-link.tsx';
import { ErrorMessage } from '../common/error-message.tsx';
import { StatusBadge } from '../common/status-badge.tsx';

function cost(value: number | null): string {
  return value === null ? '—' : `$${value.toFixed(4)}`;
}

/** One run of a side and, nested, the runs it created: figures, steps with their tool calls, output. */
function ComparedRunView({ run, label }: { run: ComparedRun; label: string }) {
  return (
    <section className="compared-run" aria-label={label} data-run-id={run.run_id}>
      <header>
        <h3>
          <AppLink to={paths.trace(run.run_id)}>
            {run.subagent_name ?? run.input_preview ?? run.run_id}
          </AppLink>
        </h3>
        <span className={`pill kind-${run.run_type}`}>{run.run_type}</span>
        {run.forked_from ? (
          <span className="pill fork-badge">fork of step {run.forked_from.step}</span>
        ) : null}
        <StatusBadge status={run.status} />
      </header>
      <dl className="meta">
        <dt>Model</dt>
        <dd>{modelLabel(run.model_spec)}</dd>
        <dt>Duration</dt>
        <dd>{run.duration_ms === null ? '—' : formatMs(run.duration_ms)}</dd>
        <dt>Tokens</dt>
        <dd data-figure="tokens">
          {run.own.total_tokens} ({run.own.input_tokens} in, {run.own.output_tokens} out)
          {run.children.length > 0 ? `; ${run.subtree.total_tokens} with its children` : ''}
        </dd>
        <dt>Model calls</dt>
        <dd>{run.own.model_calls}</dd>
        <dt>Cost</dt>
        <dd>{cost(run.subtree.cost_usd)}</dd>
        <dt>Tool calls</dt>
        <dd data-figure="tool-calls">
          {run.tool_calls.total}
          {run.tool_calls.errors > 0 ? ` (${run.tool_calls.errors} failed)` : ''}
        </dd>
      </dl>
      <ol className="compared-steps" aria-label={`${label} steps`}>
        {run.steps.map((step) => (
          <li key={step.step} data-step={step.step}>
            <span className="muted small">
              Step {step.step}
              {step.copied ? ' (copied from the source)' : ''}
            </span>{' '}
            {step.text || <em>(no text)</em>}
            {step.tool_calls.length > 0 ? (
              <ul className="compared-calls">
                {step.tool_calls.map((call, index) => (
                  <li key={index} className={call.is_error ? 'call-error' : undefined}>
                    <code>{call.name}</code>
                    {call.is_error ? ' failed' : call.is_error === null ? ' (no result)' : ''}
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ol>
      {run.error ? (
        <p className="error-message">
          <code className="error-code">{run.error.type}</code> {run.error.message}
        </p>
      ) : null}
      {run.children.length > 0 ? (
        <div className="compared-children">
          {run.children.map((child, index) => (
            <ComparedRunView key={child.run_id} run={child} label={`${label}, child ${index + 1}`} />
          ))}
        </div>
      ) : null}
    </section>
  );
}

const UNIT_TEXT = {
  word: 'word by word',
  line: 'line by line (too long for words)',
  whole: 'as a whole (too long for lines)',
} as const;

function OutputDiff({ diff }: { diff: RunComparison['output_diff'] }) {
  return (
    <section aria-label="Output diff" className="output-diff">
      <h2>Final outputs</h2>
      <p className="muted small">
        Compared {UNIT_TEXT[diff.unit]}: <del>removed</del> is only in A, <ins>added</ins> only in B.
      </p>
      <pre className="diff-text">
        {diff.parts.map((part, index) =>
          part.op === 'equal' ? (
            <span key={index}>{part.text}</span>
          ) : part.op === 'delete' ? (
            <del key={index}>{part.text}</del>
          ) : (
            <ins key={index}>{part.text}</ins>
          ),
        )}
      </pre>
    </section>
  );
}

/** `/runs/compare?a=…&b=…`: two run trees side by side and a diff of their final outputs. */
export function RunComparePage({ a, b }: { a: string; b: string }) {
  const { api } = useSession();
  const comparison = useAsync((signal) => api.compareRuns(a, b, signal), [api, a, b]);
  const data = comparison.data;
  return (
    <main className="page compare-page">
      <div className="page-title">
        <h1>Compare runs</h1>
        <AppLink to={paths.runs()}>All runs</AppLink>
      </div>
      <ErrorMessage error={comparison.error} context="Could not compare these runs" />
      {comparison.loading && !data ? <p className="muted">Loading…</p> : null}
      {data ? (
        <>
          <div className="compare-columns">
            <div>
              <h2>A</h2>
              <ComparedRunView run={data.a} label="Run A" />
            </div>
            <div>
              <h2>B</h2>
              <ComparedRunView run={data.b} label="Run B" />
            </div>
          </div>
          <OutputDiff diff={data.output_diff} />
        </>
      ) : null}
    </main>
  );
}
