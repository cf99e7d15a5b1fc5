import { entryEffect, type BuildWarning } from '../../lib/build-report.ts';

export interface BuildWarningListProps {
  warnings: BuildWarning[];
  /** Line in the spec JSON each warning points at (same order); null when it is about no spec. */
  lines?: (number | null)[];
  onShowLine?: (line: number) => void;
}

/** Each dropped spec or value, or warning: reason code, offending value, which spec ("#2 helper") and line. */
export function BuildWarningList({ warnings, lines, onShowLine }: BuildWarningListProps) {
  return (
    <ul className="warning-list" aria-label="Build warnings">
      {warnings.map((warning, index) => {
        const line = lines?.[index] ?? null;
        return (
          <li
            key={`${warning.reason}:${warning.value}:${index}`}
            className={`build-warning ${warning.specDropped ? 'is-drop' : warning.dropped ? 'is-removal' : 'is-warning'}`}
            data-code={warning.reason}
            data-spec-index={warning.specIndex ?? undefined}
          >
            <code className="reason">{warning.reason}</code>
            {warning.value !== '' ? (
              <>
                {' '}
                <code className="value">{warning.value}</code>
              </>
            ) : null}
            {warning.spec !== null ? <span className="spec-ref"> in spec {warning.spec}</span> : null}
            {line !== null ? (
              onShowLine ? (
                <>
                  {' '}
                  <button type="button" className="link-button" onClick={() => onShowLine(line)}>
                    line {line}
                  </button>
                </>
              ) : (
                <span className="muted"> (line {line})</span>
              )
            ) : null}
            <span className="muted"> — {entryEffect(warning, warnings)}</span>
            {warning.message ? <span className="muted">: {warning.message}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}
