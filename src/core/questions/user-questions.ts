import { z } from 'zod';
import { TroupeError } from '../errors.js';

export const MAX_QUESTIONS = 10;
export const MAX_OPTIONS = 10;
export const MAX_ANSWER_LENGTH = 4000;

export const userQuestionSchema = z
  .object({
    question: z.string().trim().min(1).max(2000).describe('The question, as the user will read it.'),
    options: z
      .array(z.string().trim().min(1).max(500))
      .min(1)
      .max(MAX_OPTIONS)
      .optional()
      .describe('Suggested answers the user can pick; the user may still answer in their own words.'),
  })
  .strict();

export type UserQuestion = z.infer<typeof userQuestionSchema>;

export const userQuestionsSchema = z.array(userQuestionSchema).min(1).max(MAX_QUESTIONS);

/**
 * One answer per question, in order, each non-empty and bounded. Options are suggestions, not a closed
 * list (as in Claude Code's AskUserQuestion): a user may always answer in their own words.
 */
export function validateAnswers(questions: readonly UserQuestion[], answers: readonly string[]): string[] {
  if (answers.length !== questions.length) {
    throw new TroupeError(
      'validation_failed',
      `Send one answer per question: ${questions.length} question${questions.length === 1 ? '' : 's'}, ${answers.length} answer${answers.length === 1 ? '' : 's'}`,
      { details: { questions: questions.length, answers: answers.length } },
    );
  }
  return answers.map((answer, index) => {
    const trimmed = answer.trim();
    if (trimmed === '' || trimmed.length > MAX_ANSWER_LENGTH) {
      throw new TroupeError(
        'validation_failed',
        `Answer ${index + 1} must be 1 to ${MAX_ANSWER_LENGTH} characters`,
        {
          details: { index },
        },
      );
    }
    return trimmed;
  });
}

/** The tool result the model gets once the user answered. */
export function formatAnswers(questions: readonly UserQuestion[], answers: readonly string[]): string {
  const pairs = questions.map(
    (entry, index) => `Question: ${entry.question}\nAnswer: ${answers[index] ?? ''}`,
  );
  return `The user answered:\n\n${pairs.join('\n\n')}`;
}

/** The questions stored with a pending question (its `args`), read back defensively. */
export function questionsOf(args: unknown): UserQuestion[] {
  const parsed = z.object({ questions: userQuestionsSchema }).safeParse(args);
  return parsed.success ? parsed.data.questions : [];
}
