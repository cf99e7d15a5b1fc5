import { useState, type FormEvent } from 'react';
import { useAsync } from '../../hooks/use-async.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useSession } from '../../hooks/use-session.ts';
import { modelLabel } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import { ErrorMessage } from '../common/error-message.tsx';

/** Start a conversation with a main agent or an expert (subagents are not chattable). */
export function NewConversationForm({ onCreated }: { onCreated: () => void }) {
  const { api } = useSession();
  const agents = useAsync((signal) => api.listAgents(false, signal), [api]);
  const [agentId, setAgentId] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const chosen = agentId || agents.data?.find((agent) => agent.is_default)?.id || agents.data?.[0]?.id || '';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!chosen) return;
    setBusy(true);
    setError(undefined);
    try {
      const conversation = await api.createConversation(chosen);
      onCreated();
      navigate(paths.chat(conversation.id));
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="new-conversation" onSubmit={(event) => void submit(event)} aria-label="New conversation">
      <label htmlFor="new-conversation-agent">Agent</label>
      <select id="new-conversation-agent" value={chosen} onChange={(event) => setAgentId(event.target.value)}>
        {(agents.data ?? []).map((agent) => (
          <option key={agent.id} value={agent.id}>
            {agent.name} — {modelLabel(agent.config.model)}
          </option>
        ))}
      </select>
      <button type="submit" className="primary" disabled={busy || !chosen}>
        New conversation
      </button>
      <ErrorMessage error={error ?? agents.error} />
    </form>
  );
}
