import type { RunStream } from '../../hooks/use-run-stream.ts';
import { ApprovalPrompt } from './approval-prompt.tsx';
import { QuestionPrompt } from './question-prompt.tsx';

/**
 * What the followed run waits for from the user: an approval prompt per pending tool call and a question
 * prompt per pending `ask_user_question`. Once one is decided or answered the run goes on and `onDone`
 * gives the keyboard back (to the composer).
 */
export function HumanInputPrompts({
  runId,
  stream,
  onDone,
}: {
  runId: string | null;
  stream: RunStream;
  onDone: () => void;
}) {
  const { view } = stream;
  if (!view || runId === null) return null;
  return (
    <>
      {view.approvals.map((approval) => (
        <ApprovalPrompt
          key={approval.toolCallId}
          runId={runId}
          approval={approval}
          onDecided={(toolCallId) => {
            stream.dismissApproval(toolCallId);
            onDone();
          }}
        />
      ))}
      {(view.questions ?? []).map((pending) => (
        <QuestionPrompt
          key={pending.toolCallId}
          runId={runId}
          pending={pending}
          onAnswered={(toolCallId) => {
            stream.dismissQuestion(toolCallId);
            onDone();
          }}
        />
      ))}
    </>
  );
}
