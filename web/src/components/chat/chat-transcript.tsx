import { useEffect, useRef } from 'react';
import type { ChatTurn } from '../../lib/transcript-items.ts';
import { ChatTurnView } from './chat-turn-view.tsx';

export interface ChatTranscriptProps {
  turns: ChatTurn[];
  /** The run being streamed: its turn shows a typing cursor. */
  activeRunId?: string | null;
  label?: string;
  userLabel?: string;
}

/** The messages, oldest first; keeps the newest in view while the user has not scrolled up. */
export function ChatTranscript({
  turns,
  activeRunId = null,
  label = 'Messages',
  userLabel,
}: ChatTranscriptProps) {
  const ref = useRef<HTMLOListElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    const list = ref.current;
    if (list && pinned.current) list.scrollTop = list.scrollHeight;
  });
  return (
    <ol
      ref={ref}
      className="transcript"
      role="log"
      aria-label={label}
      onScroll={(event) => {
        const list = event.currentTarget;
        pinned.current = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
      }}
    >
      {turns.length === 0 ? <li className="empty">No messages yet.</li> : null}
      {turns.map((turn) => (
        <ChatTurnView
          key={turn.key}
          turn={turn}
          streaming={turn.live === true && turn.runId === activeRunId}
          userLabel={userLabel}
        />
      ))}
    </ol>
  );
}
