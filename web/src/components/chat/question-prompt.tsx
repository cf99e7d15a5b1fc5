import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useSession } from '../../hooks/use-session.ts';
import type { PendingQuestion } from '../../lib/live-run.ts';
import { ErrorMessage } from '../common/error-message.tsx';

export interface QuestionPromptProps {
  runId: string;
  pending: PendingQuestion;
  onAnswered: (toolCallId: string) => void;
}

/**
 * The run waits (`input_required`) until the user answers every question. Options are shortcuts: picking one
 * fills the answer, which can still be typed freely. The form takes the keyboard when it appears: the
 * first option, or the first answer box.
 */
export function QuestionPrompt({ runId, pending, onAnswered }: QuestionPromptProps) {
  const { api } = useSession();
  const [answers, setAnswers] = useState<string[]>(() => pending.questions.map(() => ''));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const complete = answers.every((answer) => answer.trim() !== '');
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    form.current?.querySelector<HTMLElement>('.question-options button, input')?.focus();
  }, []);

  const setAnswer = (index: number, value: string) =>
    setAnswers((current) => current.map((answer, at) => (at === index ? value : answer)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!complete || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await api.answerQuestion(
        runId,
        pending.toolCallId,
        answers.map((answer) => answer.trim()),
      );
      onAnswered(pending.toolCallId);
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      ref={form}
      className="question-prompt"
      role="alertdialog"
      aria-label="The agent asks you"
      aria-describedby={`waiting-${pending.toolCallId}`}
      onSubmit={(event) => void submit(event)}
    >
      <h3>The agent asks you</h3>
      <p id={`waiting-${pending.toolCallId}`} className="muted small">
        The run is waiting for your answer.
      </p>
      {pending.questions.map((entry, index) => {
        const inputId = `answer-${pending.toolCallId}-${index}`;
        return (
          <fieldset key={inputId} className="question">
            <legend>
              <label htmlFor={inputId}>{entry.question}</label>
            </legend>
            {entry.options && entry.options.length > 0 ? (
              <div className="question-options" role="group" aria-label={`Options for: ${entry.question}`}>
                {entry.options.map((option) => (
                  <button
                    key={option}
                    type="button"
                    className={answers[index] === option ? 'option selected' : 'option'}
                    aria-pressed={answers[index] === option}
                    onClick={() => setAnswer(index, option)}
                  >
                    {option}
                  </button>
                ))}
              </div>
            ) : null}
            <input
              id={inputId}
              type="text"
              value={answers[index] ?? ''}
              placeholder="Your answer"
              onChange={(event) => setAnswer(index, event.target.value)}
            />
          </fieldset>
        );
      })}
      <ErrorMessage error={error} context="Answer not sent" />
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy || !complete}>
          {busy ? 'Sending…' : 'Send answer'}
        </button>
      </div>
    </form>
  );
}
