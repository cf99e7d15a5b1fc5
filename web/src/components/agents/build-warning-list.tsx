import type { BuildWarning } from '../../lib/build-report.ts';

/** Each dropped spec or tool: reason code, offending value, and which spec it belongs to. */
export function BuildWarningList({ warnings }: { warnings: BuildWarning[] }) {
  return (
    <ul className="warning-list" aria-label="Build warnings">
      {warnings.map((warning, index) => (
        <li key={`${warning.reason}:${warning.value}:${index}`} className="build-warning">
          <code className="reason">{warning.reason}</code>
          {warning.value !== '' ? (
            <>
              {' '}
              <code className="value">{warning.value}</code>
            </>
          ) : null}
          {warning.spec !== null ? <span className="muted"> in spec {warning.spec}</span> : null}
          {warning.message ? <span className="muted"> — {warning.message}</span> : null}
        </li>
      ))}
    </ul>
  );
}
