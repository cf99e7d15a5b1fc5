import { useSession } from '../../hooks/use-session.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { ConversationList } from './conversation-list.tsx';
import { ConversationView } from './conversation-view.tsx';
import { NewConversationForm } from './new-conversation-form.tsx';

/** Conversations on the left, the open one in the middle, its subagent status panel on the right. */
export function ChatPage({ conversationId }: { conversationId: string | null }) {
  const { api } = useSession();
  const conversations = useAsync((signal) => api.listConversations('active', signal), [api]);
  return (
    <main className="chat-page">
      <aside className="conversation-sidebar" aria-label="Conversations">
        <NewConversationForm onCreated={conversations.reload} />
        <ConversationList state={conversations} currentId={conversationId} />
      </aside>
      {conversationId === null ? (
        <section className="conversation empty-conversation">
          <h1>Chat</h1>
          <p className="muted">Pick a conversation on the left, or start one with an agent.</p>
        </section>
      ) : (
        <ConversationView
          key={conversationId}
          conversationId={conversationId}
          onChanged={conversations.reload}
        />
      )}
    </main>
  );
}
