import { describe, expect, it } from 'vitest';
import { formatAnswers, questionsOf, userQuestionsSchema, validateAnswers } from './user-questions.js';

const QUESTIONS = [{ question: 'Which colour?', options: ['blue', 'green'] }, { question: 'How many?' }];

describe('user questions', () => {
  it('takes one trimmed answer per question; options are suggestions', () => {
    expect(validateAnswers(QUESTIONS, [' teal ', '3'])).toEqual(['teal', '3']);
  });

  it.each([[['only one']], [['a', 'b', 'c']], [['a', '  ']], [['a', 'x'.repeat(4001)]]])(
    'refuses %j with validation_failed',
    (answers) => {
      expect(() => validateAnswers(QUESTIONS, answers)).toThrow(
        expect.objectContaining({ code: 'validation_failed' }),
      );
    },
  );

  it('formats the answers for the model, question by question', () => {
    expect(formatAnswers(QUESTIONS, ['blue', '3'])).toBe(
      'The user answered:\n\nQuestion: Which colour?\nAnswer: blue\n\nQuestion: How many?\nAnswer: 3',
    );
  });

  it('validates questions strictly and reads stored ones defensively', () => {
    expect(userQuestionsSchema.safeParse([]).success).toBe(false);
    expect(userQuestionsSchema.safeParse([{ question: ' ' }]).success).toBe(false);
    expect(userQuestionsSchema.safeParse([{ question: 'q', extra: 1 }]).success).toBe(false);
    expect(userQuestionsSchema.safeParse([{ question: 'q', options: [] }]).success).toBe(false);
    expect(questionsOf({ questions: QUESTIONS })).toEqual(QUESTIONS);
    expect(questionsOf({ nonsense: true })).toEqual([]);
  });
});
