import { useEffect, useId, useRef, useState } from 'react';
import { isUnavailable } from '../../api/api-error.ts';
import { useSession } from '../../hooks/use-session.ts';
import type { PendingApproval } from '../../lib/live-run.ts';
import { shellCommand } from '../../lib/shell-result.ts';
import { prettyJson } from '../../lib/text.ts';
import { ErrorMessage } from '../common/error-message.tsx';

export interface ApprovalPromptProps {
  runId: string;
  approval: PendingApproval;
  onDecided: (toolCallId: string) => void;
}

type Decision = { decision: 'approve'; scope: 'call' | 'run' } | { decision: 'reject'; comment: string };

/**
 * The run waits (`input_required`) until the user decides this tool call: approve it, approve the tool for
 * the rest of this run (its subagents still follow their own rules), or reject it with an optional reason
 * the agent reads. A command for `execute` is shown as the shell line it is.
 */
export function ApprovalPrompt({ runId, approval, onDecided }: ApprovalPromptProps) {
  const { api } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [rejecting, setRejecting] = useState(false);
  const [comment, setComment] = useState('');
  const commentId = useId();
  const ref = useRef<HTMLElement>(null);
  const commentInput = useRef<HTMLTextAreaElement>(null);
  // The run waits on this decision: take the keyboard (and a screen reader) straight to it.
  useEffect(() => ref.current?.focus(), []);
  useEffect(() => {
    if (rejecting) commentInput.current?.focus();
  }, [rejecting]);

  const decide = async (choice: Decision) => {
    setBusy(true);
    setError(undefined);
    try {
      await api.decideApproval(
        runId,
        approval.toolCallId,
        choice.decision,
        choice.decision === 'approve' ? { scope: choice.scope } : { comment: choice.comment },
      );
      onDecided(approval.toolCallId);
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  const command = approval.name === 'execute' ? shellCommand(approval.args) : '';

  return (
    <section
      ref={ref}
      tabIndex={-1}
      className="approval-prompt"
      role="alertdialog"
      aria-label={`Approve ${approval.name}?`}
    >
      <h3>
        Approval needed: <code>{approval.name}</code>
      </h3>
      {command !== '' ? (
        <pre className="shell-block">
          <code>
            <span className="shell-prompt" aria-hidden="true">
              ${' '}
            </span>
            {command}
          </code>
        </pre>
      ) : (
        <pre>{prettyJson(approval.args ?? {})}</pre>
      )}
      {isUnavailable(error) ? (
        <p className="error-message" role="alert">
          <code className="error-code">route_not_found</code> This server cannot take approvals yet.
        </p>
      ) : (
        <ErrorMessage error={error} />
      )}
      {rejecting ? (
        <form
          className="reject-form"
          onSubmit={(event) => {
            event.preventDefault();
            void decide({ decision: 'reject', comment });
          }}
        >
          <label htmlFor={commentId}>Why not? (optional; the agent reads it)</label>
          <textarea
            id={commentId}
            ref={commentInput}
            rows={2}
            maxLength={2000}
            value={comment}
            onChange={(event) => setComment(event.target.value)}
          />
          <div className="button-row">
            <button type="submit" disabled={busy}>
              Reject
            </button>
            <button type="button" className="link-button" disabled={busy} onClick={() => setRejecting(false)}>
              Back
            </button>
          </div>
        </form>
      ) : (
        <div className="button-row">
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => void decide({ decision: 'approve', scope: 'call' })}
          >
            Approve
          </button>
          <button
            type="button"
            disabled={busy}
            title={`Every ${approval.name} call of this run goes ahead without asking again`}
            onClick={() => void decide({ decision: 'approve', scope: 'run' })}
          >
            Approve for this run
          </button>
          <button type="button" disabled={busy} onClick={() => setRejecting(true)}>
            Reject…
          </button>
        </div>
      )}
    </section>
  );
}
