import type { ChatTurn } from '../../lib/transcript-items.ts';
import { RunNotice } from './run-notice.tsx';
import { ToolCallCard } from './tool-call-card.tsx';

export interface ChatTurnViewProps {
  turn: ChatTurn;
  streaming: boolean;
  /** Who wrote the user turns: "You", or the parent agent in a child thread. */
  userLabel?: string;
}

const ROLE_LABELS = { user: 'You', assistant: 'Assistant', notice: 'Run' } as const;

export function ChatTurnView({ turn, streaming, userLabel }: ChatTurnViewProps) {
  const roleLabel = turn.role === 'user' && userLabel ? userLabel : ROLE_LABELS[turn.role];
  return (
    <li
      className={`turn turn-${turn.role}${streaming ? ' streaming' : ''}`}
      aria-label={`${roleLabel} message`}
      data-run-id={turn.runId ?? undefined}
      data-live={turn.live ? 'true' : undefined}
    >
      {turn.role !== 'notice' ? <div className="turn-role">{roleLabel}</div> : null}
      <div className="turn-body">
        {turn.items.length === 0 && streaming ? <p className="muted">Thinking…</p> : null}
        {turn.items.map((item, index) => {
          switch (item.kind) {
            case 'text':
              return (
                <p key={index} className={`turn-text${item.partial ? ' partial' : ''}`}>
                  {item.text}
                  {item.partial ? <span className="partial-marker">{` — ${item.partial}`}</span> : null}
                </p>
              );
            case 'tool':
              return <ToolCallCard key={item.toolCallId || index} item={item} />;
            case 'notice':
              return <RunNotice key={index} item={item} />;
          }
        })}
        {streaming ? <span className="cursor" aria-hidden="true" /> : null}
      </div>
    </li>
  );
}
