import { useMemo } from 'react';
import type { Conversation } from '../../api/types.ts';
import type { AsyncState } from '../../hooks/use-async.ts';
import { groupConversationsByDate } from '../../lib/conversation-groups.ts';
import { paths } from '../../lib/routes.ts';
import { AppLink } from '../common/app-link.tsx';
import { ErrorMessage } from '../common/error-message.tsx';

export interface ConversationListProps {
  state: AsyncState<Conversation[]>;
  currentId: string | null;
  /** What the list shows: the search text and whether it is the archived conversations. */
  query: string;
  archived: boolean;
}

function emptyText(query: string, archived: boolean): string {
  if (query.trim() !== '')
    return `No ${archived ? 'archived ' : ''}conversation title contains “${query.trim()}”.`;
  return archived ? 'No archived conversations.' : 'No conversations yet.';
}

/** The conversations, newest first, in dated groups (Today, Yesterday, Previous 7 days, Older). */
export function ConversationList({ state, currentId, query, archived }: ConversationListProps) {
  const conversations = state.data;
  const groups = useMemo(() => groupConversationsByDate(conversations ?? []), [conversations]);
  return (
    <nav className="conversation-list" aria-label="Conversation list" aria-busy={state.loading}>
      <ErrorMessage error={state.error} context="Could not load conversations" />
      {state.loading && !conversations ? <p role="status">Loading…</p> : null}
      {conversations?.length === 0 ? <p className="empty">{emptyText(query, archived)}</p> : null}
      {groups.map((group) => (
        <section key={group.label} className="conversation-group" aria-label={group.label}>
          <h2 className="conversation-group-title">{group.label}</h2>
          <ul>
            {group.conversations.map((conversation) => (
              <li key={conversation.id}>
                <AppLink
                  to={paths.chat(conversation.id)}
                  aria-current={conversation.id === currentId ? 'page' : undefined}
                  className="conversation-link"
                  title={conversation.title}
                >
                  <span className="title">{conversation.title}</span>
                </AppLink>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </nav>
  );
}
