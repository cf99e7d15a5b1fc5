import { TroupeError } from '../../../core/errors.js';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import type { Storage } from '../../../core/ports/storage.js';
import { questionsOf, validateAnswers, type UserQuestion } from '../../../core/questions/user-questions.js';
import { isTerminalStatus, type Run, type ToolApproval } from '../../../core/records/run.js';
import type { Actor } from '../../../core/records/user.js';
import { resumeWhenNothingPending } from './resume-when-nothing-pending.js';

/** A question of a run as the API shows it. */
export interface RunQuestion {
  run_id: string;
  tool_call_id: string;
  questions: UserQuestion[];
  status: 'pending' | 'answered';
  answers: string[] | null;
  created_at: string;
  answered_at: string | null;
}

export function toRunQuestion(row: ToolApproval): RunQuestion {
  return {
    run_id: row.run_id,
    tool_call_id: row.tool_call_id,
    questions: questionsOf(row.args),
    status: row.status === 'answered' ? 'answered' : 'pending',
    answers: row.answers,
    created_at: row.created_at,
    answered_at: row.status === 'answered' ? row.decided_at : null,
  };
}

export async function listRunQuestions(storage: Storage, run: Run): Promise<RunQuestion[]> {
  const rows = await storage.approvals.listForRun(run.id);
  return rows.filter((row) => row.kind === 'question').map(toRunQuestion);
}

/**
 * Stores the answers to a pending `ask_user_question` call of the actor's own run (one per question), then
 * resumes the run when nothing else is pending: the resumed call returns the answers as its tool result.
 * A second answer is `question_answered` (409), a run that ended meanwhile `run_not_waiting` (409).
 */
export async function answerRunQuestion(
  storage: Storage,
  queue: RunQueue,
  actor: Actor,
  run: Run,
  toolCallId: string,
  answers: readonly string[],
): Promise<{ question: RunQuestion; run: Run }> {
  const existing = await storage.approvals.get(run.id, toolCallId);
  if (existing?.kind !== 'question') {
    throw new TroupeError('question_not_found', `Run ${run.id} has no question for tool call ${toolCallId}`);
  }
  if (existing.status !== 'pending') throw answeredAlready(toolCallId);
  if (isTerminalStatus(run.status)) {
    throw new TroupeError(
      'run_not_waiting',
      `Run ${run.id} is ${run.status}; it no longer waits for answers`,
    );
  }
  const validated = validateAnswers(questionsOf(existing.args), answers);
  const answered = await storage.approvals.answer(run.id, toolCallId, validated, actor.id);
  if (!answered) throw answeredAlready(toolCallId);
  const resumed = await resumeWhenNothingPending(storage, queue, run.id);
  return { question: toRunQuestion(answered), run: resumed ?? (await storage.runs.get(run.id)) ?? run };
}

function answeredAlready(toolCallId: string): TroupeError {
  return new TroupeError('question_answered', `The question of tool call ${toolCallId} was already answered`);
}
