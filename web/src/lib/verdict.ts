import type { RunEvent } from '../api/types.ts';

type VerificationEvent = Extract<RunEvent, { type: 'verification' }>;
export type Verdict = VerificationEvent['payload']['verdict'];

/**
 * The evidence flags a badge shows as tags: every flag the server sends (`EVIDENCE_FLAGS` in
 * src/core/verification/evidence.ts, kept in step by verdict.test.ts); a word parsed from a result's text that is
 * not one of them is dropped.
 */
const SHOWN_FLAGS = new Set([
  'no_tool_calls',
  'unreturned_children',
  'budget_exhausted',
  'tool_failures',
  'remote_reported',
  'no_remote_evidence',
]);

/** A verdict on one child run, as the console shows it (docs/verified-delegation.md#where-verdicts-are-visible). */
export interface VerdictView {
  verdict: Verdict;
  reasons: string[];
  flags: string[];
  /** False while a revision the verdict asked for runs. */
  final: boolean;
  revision: number;
  graderRunId: string | null;
}

export const VERDICT_LABELS: Record<Verdict, string> = {
  satisfied: 'satisfied',
  needs_revision: 'needs revision',
  failed: 'failed',
  unverified: 'unverified',
};

export const VERDICT_TONES: Record<Verdict, 'success' | 'warning' | 'danger' | 'neutral'> = {
  satisfied: 'success',
  needs_revision: 'warning',
  failed: 'danger',
  unverified: 'neutral',
};

export function verdictFromEvent(payload: VerificationEvent['payload']): VerdictView {
  return {
    verdict: payload.verdict,
    reasons: payload.reasons,
    flags: payload.evidence.flags.filter((flag) => SHOWN_FLAGS.has(flag)),
    final: payload.final,
    revision: payload.revision,
    graderRunId: payload.grader_run_id,
  };
}

/**
 * The verdict stored on a child run, as the status panel's list carries it: what a reloaded conversation shows,
 * with the reasons as the grader listed them. `unverified` is no news: null.
 */
export function verdictFromStored(
  stored: { verdict: Verdict; reasons: string[]; revisions: number; flags: string[] } | null | undefined,
): VerdictView | null {
  if (!stored || stored.verdict === 'unverified') return null;
  return {
    verdict: stored.verdict,
    reasons: stored.reasons,
    flags: stored.flags.filter((flag) => SHOWN_FLAGS.has(flag)),
    final: true,
    revision: stored.revisions,
    graderRunId: null,
  };
}

/** A verdict mark of a run's trace timeline (the same `verification` event, folded by the server). */
export function verdictFromMark(mark: {
  verdict: Verdict;
  reasons: string[];
  flags: string[];
  final: boolean;
  grader_run_id: string | null;
}): VerdictView {
  return {
    verdict: mark.verdict,
    reasons: mark.reasons,
    flags: mark.flags.filter((flag) => SHOWN_FLAGS.has(flag)),
    final: mark.final,
    revision: 0,
    graderRunId: mark.grader_run_id,
  };
}

const VERDICT_LINE = /^\[verification\] (satisfied|needs_revision|failed|unverified)(?:: (.*))?$/m;
const FLAGS_PART = /^\[evidence\] .*?(?:^|; )flags: ([a-z_, ]+)$/m;

/**
 * The verdict a stored `task` / `delegate` result ends with (its `[evidence]` and `[verification]` lines), so a
 * reloaded transcript shows the badge without the stream's events. `unverified` is no news: null.
 */
export function verdictFromResultText(output: unknown): VerdictView | null {
  if (typeof output === 'object' && output !== null) return verdictFromPayload(output);
  const text = typeof output === 'string' ? output : null;
  if (text === null) return null;
  const match = VERDICT_LINE.exec(text);
  if (!match || match[1] === 'unverified') return null;
  const flags = FLAGS_PART.exec(text)?.[1]?.split(', ') ?? [];
  return {
    verdict: match[1] as Verdict,
    // The footer joins the reasons with "; " (src/core/verification/verification.ts).
    reasons: match[2] ? match[2].split('; ') : [],
    flags: flags.filter((flag) => SHOWN_FLAGS.has(flag)),
    final: true,
    revision: 0,
    graderRunId: null,
  };
}

/** `subagent_await` / `subagent_status` answer `verification: {verdict, reasons, evidence}`, evidence one line. */
function verdictFromPayload(output: object): VerdictView | null {
  const verification = (output as { verification?: unknown }).verification;
  if (typeof verification !== 'object' || verification === null) return null;
  const { verdict, reasons, evidence } = verification as Record<string, unknown>;
  if (typeof verdict !== 'string' || !(verdict in VERDICT_LABELS) || verdict === 'unverified') return null;
  const flags = typeof evidence === 'string' ? (FLAGS_PART.exec(evidence)?.[1]?.split(', ') ?? []) : [];
  return {
    verdict: verdict as Verdict,
    reasons: Array.isArray(reasons) ? reasons.filter((reason) => typeof reason === 'string') : [],
    flags: flags.filter((flag) => SHOWN_FLAGS.has(flag)),
    final: true,
    revision: 0,
    graderRunId: null,
  };
}
