import { z } from 'zod';
import { MAX_ANSWER_LENGTH, MAX_QUESTIONS } from '../../core/questions/user-questions.js';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

const answerParamsSchema = z.object({
  id: z.string().min(1).max(200).describe('Run id'),
  tool_call_id: z.string().min(1).max(200).describe('The ask_user_question call waiting for answers'),
});

export const answerBodySchema = z
  .object({
    answers: z
      .array(z.string().max(MAX_ANSWER_LENGTH))
      .min(1)
      .max(MAX_QUESTIONS)
      .describe('One answer per question, in the order asked; options are suggestions, any text is accepted'),
  })
  .strict();

/** `ask_user_question` (docs/runtime-tools.md): read a run's questions, answer one to resume the run. */
export function registerQuestionRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  const { runs } = deps;

  registry.add({
    method: 'get',
    path: '/api/agent/runs/{id}/questions',

    response: RESPONSES.questions,
    summary: 'Questions the agent asked the user in this run (ask_user_question), pending and answered',
    tag: 'runs',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ questions: await runs.listQuestions(actor, params.id) }),
  });

  registry.add({
    method: 'post',
    path: '/api/agent/runs/{id}/answers/{tool_call_id}',
    errors: ['question_answered', 'run_not_waiting'],
    response: RESPONSES.answered,
    summary: 'Answer a pending question; the run resumes with the answers as the tool result',
    description:
      "Only the run's user may answer, once: a second answer is 409 `question_answered`; a run that ended " +
      'meanwhile (e.g. cancelled) is 409 `run_not_waiting`.',
    tag: 'runs',
    access: 'user',
    params: answerParamsSchema,
    body: answerBodySchema,
    handler: async ({ c, actor, params, body }) =>
      c.json(await runs.answerQuestion(actor, params.id, params.tool_call_id, body.answers)),
  });
}
