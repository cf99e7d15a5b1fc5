import { z } from 'zod';
import { EVIDENCE_FLAGS, evidenceLine, evidenceSchema, type Evidence } from './evidence.js';

export const VERDICTS = ['satisfied', 'needs_revision', 'failed', 'unverified'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** What a grader may answer (docs/verified-delegation.md#the-grader). */
export const GRADED_VERDICTS = ['satisfied', 'needs_revision', 'failed'] as const;

/** The grader's answer, validated: a real model answering badly gets one more try, then `failed`. */
export const graderAnswerSchema = z.strictObject({
  verdict: z.enum(GRADED_VERDICTS),
  reasons: z.array(z.string().min(1).max(2000)).max(20).default([]),
});
export type GraderAnswer = z.infer<typeof graderAnswerSchema>;

/** A child result's `verification` (docs/verified-delegation.md#acceptance-and-grading). */
export const verificationSchema = z
  .strictObject({
    verdict: z.enum(VERDICTS),
    reasons: z.array(z.string()),
    evidence: evidenceSchema,
    revisions: z.number().int().describe('Revisions the child was asked for before this verdict'),
    grader_run_ids: z.array(z.string()).describe('The grader runs that judged this child run'),
  })
  .describe('The verdict on a child result; `unverified` when no acceptance criteria were given');
export type Verification = z.infer<typeof verificationSchema>;

export function unverified(evidence: Evidence): Verification {
  return { verdict: 'unverified', reasons: [], evidence, revisions: 0, grader_run_ids: [] };
}

/**
 * The grader's final text as a verdict: a JSON object, alone or in a fenced block or among other words (the
 * first `{` to the last `}`). Undefined when no valid verdict is in it.
 */
export function parseGraderAnswer(text: string | null): GraderAnswer | undefined {
  if (!text) return undefined;
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  // `reasons` as one string is a common slip of a real model: taken as one reason.
  if (parsed && typeof parsed === 'object' && typeof (parsed as { reasons?: unknown }).reasons === 'string') {
    parsed = { ...parsed, reasons: [(parsed as { reasons: string }).reasons] };
  }
  const answer = graderAnswerSchema.safeParse(parsed);
  return answer.success ? answer.data : undefined;
}

/**
 * What the parent model reads after a child's text: the evidence line and the verdict, with its reasons when
 * it is not `satisfied` (docs/verified-delegation.md#what-the-parent-model-sees).
 */
export function verificationFooter(verification: Verification): string {
  const { verdict, reasons } = verification;
  const verdictLine =
    verdict === 'unverified' || reasons.length === 0
      ? `[verification] ${verdict}`
      : `[verification] ${verdict}: ${reasons.join('; ')}`;
  return `\n\n${evidenceLine(verification.evidence)}\n${verdictLine}`;
}

/** The verdict as a JSON tool payload carries it: the evidence in its short form. */
export function verificationPayload(verification: Verification): {
  verdict: Verdict;
  reasons: string[];
  evidence: string;
} {
  return {
    verdict: verification.verdict,
    reasons: verification.reasons,
    evidence: evidenceLine(verification.evidence),
  };
}

/**
 * A stored verdict as the status panel lists it beside a child run (docs/verified-delegation.md#where-verdicts-are-visible):
 * the reasons as the list the grader gave, the revisions asked before it, the evidence's flags.
 */
export const verdictSummarySchema = z
  .strictObject({
    verdict: z.enum(VERDICTS),
    reasons: z.array(z.string()),
    revisions: z.number().int().describe('Revisions the child was asked for before this verdict'),
    flags: z.array(z.enum(EVIDENCE_FLAGS)).describe("The evidence's flags"),
  })
  .describe('The verdict on this child run, as stored when it was judged; null when it was not');
export type VerdictSummary = z.infer<typeof verdictSummarySchema>;

export function verdictSummary(verification: Verification): VerdictSummary {
  return {
    verdict: verification.verdict,
    reasons: verification.reasons,
    revisions: verification.revisions,
    flags: verification.evidence.flags,
  };
}
