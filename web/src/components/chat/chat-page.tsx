import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Conversation } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { useDebouncedValue } from '../../hooks/use-debounced-value.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useSession } from '../../hooks/use-session.ts';
import { paths } from '../../lib/routes.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { ConversationList } from './conversation-list.tsx';
import { ConversationView } from './conversation-view.tsx';
import { NewChat } from './new-chat.tsx';

export interface ChatPageProps {
  conversationId: string | null;
  /** `/chat?agent=…`: the new chat's agent, picked elsewhere (an agent's "Chat" button). */
  agentId?: string | null;
}

/**
 * Conversations on the left (search, Active / Archived, dated groups), the open one in the middle, its side
 * panel on the right; `/chat` itself is a new chat. Below ~700 px it is one column: the conversation list is
 * a drawer opened from the toolbar, the side panel's parts are sheets, and the composer stays pinned under
 * the messages. An archived conversation can be brought back from the notice that confirms it.
 */
export function ChatPage({ conversationId, agentId = null }: ChatPageProps) {
  const { api } = useSession();
  const [archivedView, setArchivedView] = useState(false);
  const [search, setSearch] = useState('');
  const query = useDebouncedValue(search, 250);
  const conversations = useAsync(
    (signal) => api.listConversations(archivedView ? 'archived' : 'active', signal, query),
    [api, archivedView, query],
    () => api.ready.activeConversations(),
  );
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [archived, setArchived] = useState<Conversation | null>(null);
  const [undoError, setUndoError] = useState<unknown>(undefined);
  const toggle = useRef<HTMLButtonElement>(null);
  const close = useRef<HTMLButtonElement>(null);

  // Picking a conversation closes the drawer.
  useEffect(() => setDrawerOpen(false), [conversationId, agentId]);
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

  const onArchived = (conversation: Conversation) => {
    setArchived(conversation);
    setUndoError(undefined);
    conversations.reload();
    navigate(paths.chat());
  };
  const undo = async () => {
    if (!archived) return;
    try {
      await api.patchConversation(archived.id, { status: 'active' });
      setArchived(null);
      // It is active again: the list shows the active conversations, it among them.
      setArchivedView(false);
      conversations.reload();
      navigate(paths.chat(archived.id));
    } catch (thrown) {
      setUndoError(thrown);
    }
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
        <div className="sidebar-tools">
          <button
            type="button"
            className="primary new-chat-button"
            onClick={() => {
              setArchivedView(false);
              navigate(paths.newChat());
              // Already on /chat: the composer is there, take the keyboard to it.
              document.getElementById('composer-input')?.focus();
              setDrawerOpen(false);
            }}
          >
            New chat
          </button>
          <input
            type="search"
            className="conversation-search"
            aria-label="Search conversations"
            placeholder="Search titles"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
          <div className="segmented" role="group" aria-label="Show conversations">
            <button type="button" aria-pressed={!archivedView} onClick={() => setArchivedView(false)}>
              Active
            </button>
            <button type="button" aria-pressed={archivedView} onClick={() => setArchivedView(true)}>
              Archived
            </button>
          </div>
        </div>
        <ConversationList
          state={conversations}
          currentId={conversationId}
          query={query}
          archived={archivedView}
        />
      </aside>
      {drawerOpen ? <div className="drawer-backdrop" aria-hidden="true" onClick={shut} /> : null}
      {conversationId === null ? (
        <NewChat agentId={agentId} onCreated={conversations.reload} />
      ) : (
        <ConversationView
          key={conversationId}
          conversationId={conversationId}
          onChanged={conversations.reload}
          onArchived={onArchived}
        />
      )}
      {archived ? (
        <div className="undo-notice" role="status">
          <span>Archived “{archived.title}”.</span>
          <button type="button" className="link-button" onClick={() => void undo()}>
            Undo
          </button>
          <button
            type="button"
            className="link-button"
            aria-label="Dismiss"
            onClick={() => setArchived(null)}
          >
            ×
          </button>
          <ErrorMessage error={undoError} context="Could not restore it" />
        </div>
      ) : null}
    </main>
  );
}
