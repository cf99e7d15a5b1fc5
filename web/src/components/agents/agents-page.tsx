import { useState } from 'react';
import type { Agent } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useSession } from '../../hooks/use-session.ts';
import { agentKind } from '../../lib/agent-form-state.ts';
import { paths } from '../../lib/routes.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { AgentGroup } from './agent-group.tsx';

function byDefaultThenName(left: Agent, right: Agent): number {
  if (left.is_default !== right.is_default) return left.is_default ? -1 : 1;
  return left.name.localeCompare(right.name);
}

/** Agents, subagents and experts the user can use, grouped; subagents only on request (as the API does). */
export function AgentsPage() {
  const { api } = useSession();
  const [includeSubagents, setIncludeSubagents] = useState(true);
  const agents = useAsync((signal) => api.listAgents(includeSubagents, signal), [api, includeSubagents]);
  const list = [...(agents.data ?? [])].sort(byDefaultThenName);
  const groups = {
    agent: list.filter((agent) => agentKind(agent) === 'agent'),
    subagent: list.filter((agent) => agentKind(agent) === 'subagent'),
    expert: list.filter((agent) => agentKind(agent) === 'expert'),
  };
  const removed = (id: string) => agents.setData((current) => current?.filter((agent) => agent.id !== id));

  return (
    <main className="page agents-page">
      <div className="page-title">
        <h1>Agents</h1>
        <div className="button-row">
          <button type="button" className="primary" onClick={() => navigate(paths.newAgent('agent'))}>
            New agent
          </button>
          <button type="button" onClick={() => navigate(paths.newAgent('subagent'))}>
            New subagent
          </button>
          <button type="button" onClick={() => navigate(paths.newAgent('expert'))}>
            New expert
          </button>
        </div>
      </div>
      <label className="toggle">
        <input
          type="checkbox"
          checked={includeSubagents}
          onChange={(event) => setIncludeSubagents(event.target.checked)}
        />
        Include subagents
      </label>
      <ErrorMessage error={agents.error} context="Could not load agents" />
      {agents.loading && !agents.data ? <p role="status">Loading agents…</p> : null}
      <AgentGroup
        title="Agents"
        hint="Main agents you can chat with; they hand subtasks to subagents."
        agents={groups.agent}
        onDeleted={removed}
      />
      {includeSubagents ? (
        <AgentGroup
          title="Subagents"
          hint="Called by main agents through the task tools; never listed for chat."
          agents={groups.subagent}
          onDeleted={removed}
        />
      ) : null}
      <AgentGroup
        title="Experts"
        hint="Published chat agents; other experts may delegate to them."
        agents={groups.expert}
        onDeleted={removed}
      />
    </main>
  );
}
