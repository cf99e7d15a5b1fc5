import { VERDICT_LABELS, VERDICT_TONES, type VerdictView } from '../../lib/verdict.ts';

/** A child result's verdict: a coloured badge, its reasons and the evidence flags as tags. */
export function VerdictBadge({ verdict, compact = false }: { verdict: VerdictView; compact?: boolean }) {
  const label = VERDICT_LABELS[verdict.verdict];
  return (
    <div
      className={`verdict verdict-${VERDICT_TONES[verdict.verdict]}`}
      role="note"
      aria-label={`Verdict: ${label}`}
      data-verdict={verdict.verdict}
      data-final={verdict.final}
    >
      <span className="verdict-label">{label}</span>
      {verdict.flags.map((flag) => (
        <code key={flag} className="verdict-flag">
          {flag}
        </code>
      ))}
      {!compact && verdict.reasons.length > 0 ? (
        <ul className="verdict-reasons">
          {verdict.reasons.map((reason, index) => (
            <li key={index}>{reason}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
