import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useSession } from '../../hooks/use-session.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { ConversationList } from './conversation-list.tsx';
import { ConversationView } from './conversation-view.tsx';
import { NewConversationForm } from './new-conversation-form.tsx';

/**
 * Conversations on the left, the open one in the middle, its subagent status panel on the right. Below
 * ~700 px it is one column: the conversation list is a drawer opened from the toolbar, the status panel a
 * "Subagents (n)" sheet, and the composer stays pinned under the messages.
 */
export function ChatPage({ conversationId }: { conversationId: string | null }) {
  const { api } = useSession();
  const conversations = useAsync((signal) => api.listConversations('active', signal), [api]);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const close = useRef<HTMLButtonElement>(null);

  // Picking a conversation closes the drawer.
  useEffect(() => setDrawerOpen(false), [conversationId]);
  useEffect(() => {
    if (drawerOpen) close.current?.focus();
  }, [drawerOpen]);

  const shut = () => {
    setDrawerOpen(false);
    toggle.current?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && drawerOpen) shut();
  };

  return (
    <main className={`chat-page${drawerOpen ? ' drawer-open' : ''}`} onKeyDown={onKeyDown}>
      <div className="chat-toolbar">
        <button
          type="button"
          ref={toggle}
          aria-expanded={drawerOpen}
          aria-controls="conversation-drawer"
          onClick={() => setDrawerOpen(!drawerOpen)}
        >
          <span aria-hidden="true">☰</span> Conversations
        </button>
      </div>
      <aside id="conversation-drawer" className="conversation-sidebar" aria-label="Conversations">
        <div className="drawer-head">
          <button type="button" ref={close} className="small" onClick={shut}>
            Close
          </button>
        </div>
        <NewConversationForm onCreated={conversations.reload} />
        <ConversationList state={conversations} currentId={conversationId} />
      </aside>
      {drawerOpen ? <div className="drawer-backdrop" aria-hidden="true" onClick={shut} /> : null}
      {conversationId === null ? (
        <section className="conversation empty-conversation">
          <h1>Chat</h1>
          <p className="muted">Pick a conversation from the list, or start one with an agent.</p>
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
