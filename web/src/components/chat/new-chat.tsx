import { useRef, useState } from 'react';
import type { Conversation } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useSession } from '../../hooks/use-session.ts';
import { modelLabel } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { Composer } from './composer.tsx';

export interface NewChatProps {
  /** Picked beforehand (an agent's "Chat" button); otherwise the default agent. */
  agentId: string | null;
  onCreated: () => void;
}

/**
 * A chat that has not started: a composer and an agent picker. Nothing exists on the server until the first
 * message is sent; then the conversation is created (the server names it after that message), the files
 * chosen are uploaded to it, the message starts its first run, and the page becomes that conversation. A
 * send that fails half-way is retried into the same conversation, with the same request id.
 */
export function NewChat({ agentId, onCreated }: NewChatProps) {
  const { api } = useSession();
  const agents = useAsync((signal) => api.listAgents(false, signal), [api]);
  const [picked, setPicked] = useState<string | null>(agentId);
  const created = useRef<{ conversation: Conversation; uploads: Map<string, string[]> } | null>(null);
  const list = agents.data ?? [];
  const chosen =
    (picked !== null && list.some((agent) => agent.id === picked || agent.slug === picked)
      ? list.find((agent) => agent.id === picked || agent.slug === picked)?.id
      : undefined) ??
    list.find((agent) => agent.is_default)?.id ??
    list[0]?.id ??
    '';
  const agent = list.find((item) => item.id === chosen);

  const send = async (content: string, requestId: string, _ids: string[], files: File[]) => {
    if (!chosen) return;
    if (created.current?.conversation.agent_id !== chosen) {
      created.current = { conversation: await api.createConversation(chosen), uploads: new Map() };
    }
    const { conversation, uploads } = created.current;
    const key = files.map((file) => `${file.name}:${file.size}:${file.lastModified}`).join('|');
    let attachmentIds = uploads.get(key);
    if (attachmentIds === undefined) {
      attachmentIds =
        files.length > 0 ? (await api.uploadAttachments(conversation.id, files)).map((file) => file.id) : [];
      uploads.set(key, attachmentIds);
    }
    await api.postMessage(conversation.id, content, requestId, attachmentIds);
    created.current = null;
    onCreated();
    navigate(paths.chat(conversation.id));
  };

  return (
    <section className="conversation new-chat" aria-label="New chat">
      <div className="new-chat-intro">
        <h1>New chat</h1>
        <p className="muted">
          {agent ? (
            <>
              with <strong>{agent.name}</strong> · {modelLabel(agent.config.model)}
            </>
          ) : agents.loading ? (
            'Loading agents…'
          ) : (
            'No agent to chat with yet: create one under Agents.'
          )}
        </p>
      </div>
      <ErrorMessage error={agents.error} context="Could not load the agents" />
      <Composer
        disabled={!chosen}
        disabledReason={chosen ? null : 'Pick an agent first.'}
        running={false}
        runStatus={null}
        cancelling={false}
        onSend={send}
        autoFocus
      >
        <label className="agent-picker">
          <span className="visually-hidden">Agent</span>
          <select
            aria-label="Agent"
            value={chosen}
            onChange={(event) => {
              setPicked(event.target.value);
              navigate(paths.newChat(event.target.value), { replace: true });
            }}
          >
            {list.map((item) => (
              <option key={item.id} value={item.id}>
                {item.name}
              </option>
            ))}
          </select>
        </label>
      </Composer>
    </section>
  );
}
