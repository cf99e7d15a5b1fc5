import { useEffect, useRef, useState } from 'react';
import { isUnavailable } from '../../api/api-error.ts';
import { useSession } from '../../hooks/use-session.ts';
import type { PendingApproval } from '../../lib/live-run.ts';
import { prettyJson } from '../../lib/text.ts';
import { ErrorMessage } from '../common/error-message.tsx';

export interface ApprovalPromptProps {
  runId: string;
  approval: PendingApproval;
  onDecided: (toolCallId: string) => void;
}

/** The run waits (`input_required`) until the user approves or rejects this tool call. */
export function ApprovalPrompt({ runId, approval, onDecided }: ApprovalPromptProps) {
  const { api } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const ref = useRef<HTMLElement>(null);
  // The run waits on this decision: take the keyboard (and a screen reader) straight to it.
  useEffect(() => ref.current?.focus(), []);

  const decide = async (decision: 'approve' | 'reject') => {
    setBusy(true);
    setError(undefined);
    try {
      await api.decideApproval(runId, approval.toolCallId, decision);
      onDecided(approval.toolCallId);
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

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
      <pre>{prettyJson(approval.args ?? {})}</pre>
      {isUnavailable(error) ? (
        <p className="error-message" role="alert">
          <code className="error-code">route_not_found</code> This server cannot take approvals yet.
        </p>
      ) : (
        <ErrorMessage error={error} />
      )}
      <div className="button-row">
        <button type="button" className="primary" disabled={busy} onClick={() => void decide('approve')}>
          Approve
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => void decide('reject')}>
          Reject
        </button>
      </div>
    </section>
  );
}
