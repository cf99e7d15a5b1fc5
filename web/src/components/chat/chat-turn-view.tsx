import { useState } from 'react';
import type { ChatTurn } from '../../lib/transcript-items.ts';
import { MarkdownText } from '../common/markdown-text.tsx';
import { EditMessageForm } from './edit-message-form.tsx';
import { MessageActions, turnText } from './message-actions.tsx';
import { RunNotice } from './run-notice.tsx';
import { ToolCallCard } from './tool-call-card.tsx';
import { TurnFooter } from './turn-footer.tsx';
import { useTranscriptContext } from './transcript-context.ts';

export interface ChatTurnViewProps {
  turn: ChatTurn;
  streaming: boolean;
  /** Who wrote the user turns: "You", or the parent agent in a child thread. */
  userLabel?: string;
  /** The run's last assistant turn: show its status, time, tokens and trace link. */
  footer?: boolean;
}

const ROLE_LABELS = { user: 'You', assistant: 'Assistant', notice: 'Run' } as const;

export function ChatTurnView({ turn, streaming, userLabel, footer = false }: ChatTurnViewProps) {
  const context = useTranscriptContext();
  const [editing, setEditing] = useState(false);
  const roleLabel = turn.role === 'user' && userLabel ? userLabel : ROLE_LABELS[turn.role];
  const run = turn.runId === null ? undefined : context.runsById.get(turn.runId);
  const runStatus = turn.runId === null ? undefined : (context.liveStatus.get(turn.runId) ?? run?.status);
  return (
    <li
      className={`turn turn-${turn.role}${streaming ? ' streaming' : ''}`}
      aria-label={`${roleLabel} message`}
      data-run-id={turn.runId ?? undefined}
      data-live={turn.live ? 'true' : undefined}
    >
      {turn.role !== 'notice' ? <div className="turn-role">{roleLabel}</div> : null}
      {editing && context.actions ? (
        <EditMessageForm
          text={turnText(turn)}
          onSend={context.actions.resend}
          onClose={() => setEditing(false)}
        />
      ) : null}
      <div className="turn-body" hidden={editing}>
        {turn.items.length === 0 && streaming ? <p className="muted">Thinking…</p> : null}
        {turn.items.map((item, index) => {
          switch (item.kind) {
            case 'text':
              // What people type is shown as typed; what models write is Markdown. A partial answer (kept when
              // its run was cancelled or failed mid-stream) carries its marker after the text.
              if (turn.role === 'assistant') {
                const markdown = <MarkdownText key={index} text={item.text} className="turn-text markdown" />;
                if (!item.partial) return markdown;
                return (
                  <div key={index} className="turn-text partial">
                    <MarkdownText text={item.text} className="markdown" />
                    <span className="partial-marker">{` — ${item.partial}`}</span>
                  </div>
                );
              }
              return (
                <p key={index} className="turn-text">
                  {item.text}
                  {item.partial ? <span className="partial-marker">{` — ${item.partial}`}</span> : null}
                </p>
              );
            case 'tool':
              return <ToolCallCard key={item.toolCallId || index} item={item} runStatus={runStatus} />;
            case 'notice':
              return <RunNotice key={index} item={item} />;
          }
        })}
        {streaming ? <span className="cursor" aria-hidden="true" /> : null}
      </div>
      {footer && turn.runId !== null && run ? (
        <TurnFooter run={run} liveStatus={context.liveStatus.get(turn.runId)} />
      ) : null}
      {!streaming &&
      !editing &&
      (turn.role === 'user' || footer || turn.key === context.actions?.retryTurnKey) ? (
        <MessageActions turn={turn} onEdit={() => setEditing(true)} />
      ) : null}
    </li>
  );
}
