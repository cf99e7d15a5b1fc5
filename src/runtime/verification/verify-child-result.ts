import type { EventBus } from '../../core/ports/event-bus.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import type { Evidence } from '../../core/verification/evidence.js';
import { maxRevisions } from '../../core/verification/grader-agent.js';
import { GRADER_TEXTS } from '../../core/verification/grader-texts.js';
import { unverified, type Verdict, type Verification } from '../../core/verification/verification.js';
import { lineageOf } from '../events/lineage-of.js';
import { publishAllQuietly } from '../events/publish-quietly.js';
import type { GraderRunService } from './grader-run-service.js';
import { readEvidence } from './read-evidence.js';

export interface VerifyDeps {
  storage: Storage;
  bus: EventBus;
  graders: GraderRunService;
}

export interface VerifyRequest {
  /** The run that receives the result; none for a top-level `POST /api/delegate`. */
  parent: Run | undefined;
  userId: string;
  /** The agent whose `config.grader` applies. */
  base: Agent;
  toolCallId: string | undefined;
  /** The finished child. */
  child: Run;
  /** Bounds each wait (grader, revision). */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /**
   * Resumes the child's thread with the grader's reasons (revision `n`, from 1) and waits for that run's end:
   * the run, or why it could not start.
   */
  revise: (message: string, revision: number) => Promise<Run | string>;
}

/** The criteria a child was started with (kept in its run's input). */
export function acceptanceOf(run: Run): string | undefined {
  const acceptance = run.input.acceptance;
  return typeof acceptance === 'string' && acceptance.trim() !== '' ? acceptance : undefined;
}

/** The task a child was given first: a revision's input names it, the first run's message is it. */
function taskOf(run: Run): string {
  const task = run.input.task;
  return typeof task === 'string' ? task : run.input.message;
}

/**
 * A finished child's result with its evidence and verdict (docs/verified-delegation.md). Without criteria:
 * `unverified`, and nothing is written. With criteria: a completed child is graded, a `needs_revision` child is
 * resumed with the reasons up to `config.grader.max_revisions` times and graded again; every verdict is stored on
 * the judged run and announced on the parent's stream. Returns the last child run and its verification.
 */
export async function verifyChildResult(
  deps: VerifyDeps,
  request: VerifyRequest,
): Promise<{ run: Run; verification: Verification }> {
  let child = request.child;
  let evidence = await readEvidence(deps.storage, child);
  const acceptance = acceptanceOf(child);
  if (acceptance === undefined) return { run: child, verification: unverified(evidence) };
  const task = taskOf(child);
  const limit = maxRevisions(request.base);
  for (let revision = 0; ; revision += 1) {
    if (child.status !== 'completed') {
      const reasons = [GRADER_TEXTS.childEnded(child.status, child.error?.message ?? 'no error message')];
      return {
        run: child,
        verification: await settle(deps, request, child, 'failed', reasons, evidence, revision, [], true),
      };
    }
    const graded = await deps.graders.grade({
      parent: request.parent,
      userId: request.userId,
      base: request.base,
      toolCallId: request.toolCallId,
      child,
      task,
      acceptance,
      evidence,
      timeoutMs: request.timeoutMs,
      signal: request.signal,
    });
    const [verdict, reasons] =
      graded.kind === 'answered'
        ? [graded.answer.verdict, graded.answer.reasons]
        : (['failed', [graded.reason]] as const);
    const final = verdict !== 'needs_revision' || revision >= limit;
    const verification = await settle(
      deps,
      request,
      child,
      verdict,
      [...reasons],
      evidence,
      revision,
      graded.graderRunIds,
      final,
    );
    if (final) return { run: child, verification };
    const next = await request.revise(GRADER_TEXTS.revision(reasons), revision + 1);
    if (typeof next === 'string') {
      const refusedReasons = [...reasons, GRADER_TEXTS.revisionRefused(next)];
      return { run: child, verification: { ...verification, reasons: refusedReasons } };
    }
    child = next;
    evidence = await readEvidence(deps.storage, child);
  }
}

/** A verdict stored on the judged run, then announced on the parent's stream (while the parent is active). */
async function settle(
  deps: VerifyDeps,
  request: VerifyRequest,
  child: Run,
  verdict: Verdict,
  reasons: string[],
  evidence: Evidence,
  revision: number,
  graderRunIds: string[],
  final: boolean,
): Promise<Verification> {
  const verification: Verification = {
    verdict,
    reasons,
    evidence,
    revisions: revision,
    grader_run_ids: graderRunIds,
  };
  await deps.storage.verifications.put({
    run_id: child.id,
    user_id: child.user_id,
    parent_run_id: request.parent?.id ?? null,
    verdict,
    verification,
  });
  const parent = request.parent;
  if (!parent) return verification;
  const [appended = []] = await deps.storage.events.appendBatches([
    {
      run_id: parent.id,
      whileActive: true,
      events: [
        {
          type: 'verification',
          payload: Object.assign({}, lineageOf(parent), {
            run_id: child.id,
            kind: child.run_type === 'delegation' ? ('delegation' as const) : ('subagent' as const),
            verdict,
            reasons,
            evidence,
            revision,
            grader_run_id: graderRunIds.at(-1) ?? null,
            final,
          }),
        },
      ],
    },
  ]);
  await publishAllQuietly(deps.bus, appended);
  return verification;
}
