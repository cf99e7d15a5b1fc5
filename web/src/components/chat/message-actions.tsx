import { useState } from 'react';
import type { ChatTurn } from '../../lib/transcript-items.ts';
import { CopyButton } from '../common/copy-button.tsx';
import { useTranscriptContext } from './transcript-context.ts';

/** The text a turn shows, as the user would copy it (its tool calls left out). */
export function turnText(turn: ChatTurn): string {
  return turn.items
    .flatMap((item) => (item.kind === 'text' ? [item.text] : []))
    .join('\n\n')
    .trim();
}

/**
 * Under a message: Copy; under the latest user message, Edit (the edited text is sent as a new message);
 * under the answer of the latest run, Retry (its message sent again). Nothing can be sent while a run is
 * active, so Edit and Retry wait for it.
 */
export function MessageActions({ turn, onEdit }: { turn: ChatTurn; onEdit: () => void }) {
  const { actions } = useTranscriptContext();
  const [error, setError] = useState<string | null>(null);
  const text = turnText(turn);
  const retryable = actions !== null && turn.runId !== null && turn.key === actions.retryTurnKey;
  const editable = actions !== null && turn.role === 'user' && turn.key === actions.editTurnKey;
  if (text === '' && !retryable) return null;
  const retry = async () => {
    if (!actions || turn.runId === null) return;
    setError(null);
    try {
      await actions.retry(turn.runId);
    } catch (thrown) {
      setError(thrown instanceof Error ? thrown.message : String(thrown));
    }
  };
  const who = turn.role === 'user' ? 'your message' : 'the answer';
  return (
    <div className="message-actions" role="group" aria-label={`Actions on ${who}`}>
      {text !== '' ? <CopyButton value={text} label={turn.role === 'user' ? 'message' : 'answer'} /> : null}
      {editable ? (
        <button type="button" className="small" disabled={actions.busy} onClick={onEdit}>
          Edit
        </button>
      ) : null}
      {retryable ? (
        <button type="button" className="small" disabled={actions.busy} onClick={() => void retry()}>
          Retry
        </button>
      ) : null}
      {error !== null ? (
        <span className="error-message small" role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
