import type { Conversation } from '../../api/types.ts';
import type { AsyncState } from '../../hooks/use-async.ts';
import { formatTime } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import { AppLink } from '../common/app-link.tsx';
import { ErrorMessage } from '../common/error-message.tsx';

export interface ConversationListProps {
  state: AsyncState<Conversation[]>;
  currentId: string | null;
}

export function ConversationList({ state, currentId }: ConversationListProps) {
  const conversations = state.data ?? [];
  return (
    <nav className="conversation-list" aria-label="Conversation list">
      <ErrorMessage error={state.error} context="Could not load conversations" />
      {state.loading && !state.data ? <p role="status">Loading…</p> : null}
      {state.data && conversations.length === 0 ? <p className="empty">No conversations yet.</p> : null}
      <ul>
        {conversations.map((conversation) => (
          <li key={conversation.id}>
            <AppLink
              to={paths.chat(conversation.id)}
              aria-current={conversation.id === currentId ? 'page' : undefined}
              className="conversation-link"
            >
              <span className="title">{conversation.title}</span>
              <span className="muted small">{formatTime(conversation.updated_at)}</span>
            </AppLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
