import { startTransition, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ChatTurn } from '../../lib/transcript-items.ts';
import { ChatTurnView } from './chat-turn-view.tsx';

export interface ChatTranscriptProps {
  turns: ChatTurn[];
  /** The run being streamed: its turn shows a typing cursor. */
  activeRunId?: string | null;
  label?: string;
  userLabel?: string;
}

/** The last assistant turn of each run: it carries the run's footer (status, time, tokens, trace). */
function footerTurns(turns: readonly ChatTurn[]): Set<string> {
  const last = new Map<string, string>();
  for (const turn of turns)
    if (turn.role === 'assistant' && turn.runId !== null) last.set(turn.runId, turn.key);
  return new Set(last.values());
}

/**
 * Turns in the first render: about what a screen shows of the newest ones. The older turns follow in the next
 * frame, so a long conversation's first paint does not wait for every turn's render and layout.
 */
const FIRST_RENDER_TURNS = 6;

/** The messages, oldest first; keeps the newest in view while the user has not scrolled up. */
export function ChatTranscript({
  turns,
  activeRunId = null,
  label = 'Messages',
  userLabel,
}: ChatTranscriptProps) {
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const footers = useMemo(() => footerTurns(turns), [turns]);
  const [everyTurn, setEveryTurn] = useState(false);
  useEffect(() => {
    const frame = requestAnimationFrame(() => startTransition(() => setEveryTurn(true)));
    return () => cancelAnimationFrame(frame);
  }, []);
  const shown = everyTurn ? turns : turns.slice(-FIRST_RENDER_TURNS);
  // Before the paint: older turns added above must not show for a frame with the newest scrolled away.
  useLayoutEffect(() => {
    const list = ref.current;
    if (list && pinned.current) list.scrollTop = list.scrollHeight;
  });
  return (
    // The log is the scrolling box; the turns inside it stay a real list (a `log` role on the list itself
    // would orphan its items).
    <div
      ref={ref}
      className="transcript"
      role="log"
      aria-label={label}
      // A scrolling region must be reachable by keyboard to be read (axe: scrollable-region-focusable).
      tabIndex={0}
      onScroll={(event) => {
        const list = event.currentTarget;
        pinned.current = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
      }}
    >
      {turns.length === 0 ? <p className="empty">No messages yet.</p> : null}
      <ol className="transcript-items">
        {shown.map((turn) => (
          <ChatTurnView
            key={turn.key}
            turn={turn}
            streaming={turn.live === true && turn.runId === activeRunId}
            userLabel={userLabel}
            footer={footers.has(turn.key)}
          />
        ))}
      </ol>
    </div>
  );
}
