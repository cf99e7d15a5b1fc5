import type { AgentConfig } from '../../api/types.ts';
import { useBuildReport } from '../../hooks/use-build-report.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { BuildWarningList } from './build-warning-list.tsx';

/** Live warnings from `POST /api/agent/build-report`, asked for as the user pauses typing. */
export function BuildReportPanel({ config, agentId }: { config: AgentConfig | null; agentId?: string }) {
  // The stored agent's id lets the server fill redacted MCP secrets, so its servers can be listed.
  const state = useBuildReport(config, undefined, agentId);
  const report = state.status === 'ready' ? state.report : state.status === 'loading' ? state.previous : null;
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
        report.warnings.length === 0 ? (
          <p className="ok-text">
            No warnings: every spec resolves.
            {report.resolved && report.resolved.length > 0
              ? ` Subagents: ${report.resolved.join(', ')}.`
              : ''}
          </p>
        ) : (
          <>
            <p>
              {report.warnings.length} warning{report.warnings.length === 1 ? '' : 's'}:
            </p>
            <BuildWarningList warnings={report.warnings} />
          </>
        )
      ) : null}
    </section>
  );
}
