import type { BuildReportState } from '../../hooks/use-build-report.ts';
import { countsLine, reportCounts, specNumber } from '../../lib/build-report.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { BuildWarningList } from './build-warning-list.tsx';

export interface BuildReportPanelProps {
  state: BuildReportState;
  lines?: (number | null)[];
  onShowLine?: (line: number) => void;
}

/**
 * The live report of `POST /api/agent/build-report`: what was dropped and why, and — always — what will
 * run, each subagent with its tools; a spec that only runs because an earlier one of its name was dropped
 * says so.
 */
export function BuildReportPanel({ state, lines, onShowLine }: BuildReportPanelProps) {
  const report = state.status === 'ready' ? state.report : state.status === 'loading' ? state.previous : null;
  const counts = report ? reportCounts(report.warnings) : null;
  return (
    <section
      className="build-report"
      aria-label="Build report"
      aria-live="polite"
      aria-busy={state.status === 'loading'}
    >
      <h3>Build report</h3>
      {state.status === 'idle' ? <p className="muted">No inline specs to check.</p> : null}
      {state.status === 'loading' && report === null ? <p className="muted">Checking…</p> : null}
      {state.status === 'unavailable' ? (
        <p className="muted" role="status">
          Build report unavailable: this server does not offer <code>POST /api/agent/build-report</code> yet.
        </p>
      ) : null}
      {state.status === 'error' ? <ErrorMessage error={state.error} context="Build report failed" /> : null}
      {report !== null ? (
        <>
          {report.warnings.length === 0 ? (
            <p className="ok-text">No warnings: every spec resolves.</p>
          ) : (
            <>
              <p className="report-counts">{counts ? countsLine(counts) : ''}:</p>
              <BuildWarningList warnings={report.warnings} lines={lines} onShowLine={onShowLine} />
            </>
          )}
          <h4>Will run</h4>
          {report.subagents && report.subagents.length > 0 ? (
            <ul className="will-run" aria-label="Subagents that will run">
              {report.subagents.map((subagent) => (
                <li
                  key={`${subagent.name}:${subagent.spec_index ?? 'builtin'}`}
                  data-name={subagent.name}
                  data-spec-index={subagent.spec_index ?? undefined}
                  className={subagent.replaces_dropped_spec_index !== undefined ? 'flagged' : undefined}
                >
                  <strong>
                    {subagent.spec_index !== null ? `${specNumber(subagent.spec_index)} ` : ''}
                    {subagent.name}
                  </strong>{' '}
                  <span className="pill">{subagent.source === 'builtin' ? 'built-in' : 'inline'}</span>{' '}
                  <span className="muted small">
                    {subagent.tools.length > 0 ? subagent.tools.join(', ') : 'no tools'}
                  </span>
                  {subagent.replaces_dropped_spec_index !== undefined ? (
                    <p className="flag-note">
                      <span aria-hidden="true">⚠ </span>Runs only because spec{' '}
                      {specNumber(subagent.replaces_dropped_spec_index)} of the same name was dropped.
                    </p>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">Nothing: no subagent would run.</p>
          )}
        </>
      ) : null}
    </section>
  );
}
