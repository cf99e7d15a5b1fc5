import { z } from 'zod';
import type { Storage } from '../../../core/ports/storage.js';
import {
  formatAnswers,
  questionsOf,
  userQuestionsSchema,
  type UserQuestion,
} from '../../../core/questions/user-questions.js';
import { ApprovalPendingError } from '../../../core/approvals/approval-pending-error.js';
import { defineTool, type TroupeTool } from '../../../core/tools/troupe-tool.js';
import { refuseSubagentRun } from './main-agent-only.js';

export const ASK_USER_QUESTION = 'ask_user_question';

const askUserQuestionInputSchema = z
  .object({
    questions: userQuestionsSchema.describe('One or more questions for the user, answered together.'),
  })
  .strict();

export interface AskUserQuestionInput {
  questions: UserQuestion[];
}

/**
 * `ask_user_question` (docs/runtime-tools.md): the first call records the questions as a pending human input (the same
 * rows and parking as a tool approval) with a `question_required` event, and the run parks as
 * `input_required`. Once `POST /api/agent/runs/{id}/answers/{tool_call_id}` stored the answers, the resumed
 * run executes the call again and it returns them. Main agents only.
 */
export function createAskUserQuestionTool(storage: Storage): TroupeTool<AskUserQuestionInput> {
  return defineTool<AskUserQuestionInput>({
    name: ASK_USER_QUESTION,
    effect: 'idempotent',
    description:
      'Ask the user one or more questions and wait for the answers (the run pauses until they reply). Use it ' +
      'when you cannot go on without a decision or a fact only the user has; do not use it for things you can ' +
      'find out yourself. Give `options` when there are a few likely answers; the user may still answer freely.',
    inputSchema: askUserQuestionInputSchema,
    async execute(input, context) {
      refuseSubagentRun(ASK_USER_QUESTION, context);
      const existing = await storage.approvals.get(context.run.id, context.toolCallId);
      if (existing?.status === 'answered') {
        return formatAnswers(questionsOf(existing.args), existing.answers ?? []);
      }
      if (!existing) {
        await storage.approvals.request({
          run_id: context.run.id,
          tool_call_id: context.toolCallId,
          tool_name: ASK_USER_QUESTION,
          args: { questions: input.questions },
          kind: 'question',
        });
        await context.emit('question_required', { questions: input.questions });
      }
      throw new ApprovalPendingError(context.toolCallId);
    },
  });
}
