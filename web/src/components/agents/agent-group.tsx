import { useId } from 'react';
import type { Agent } from '../../api/types.ts';
import { AgentCard } from './agent-card.tsx';

export interface AgentGroupProps {
  title: string;
  hint: string;
  agents: Agent[];
  onDeleted: (id: string) => void;
}

export function AgentGroup({ title, hint, agents, onDeleted }: AgentGroupProps) {
  const headingId = useId();
  return (
    <section className="agent-group" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {title} <span className="count">{agents.length}</span>
      </h2>
      <p className="muted">{hint}</p>
      {agents.length === 0 ? (
        <p className="empty">None yet.</p>
      ) : (
        <ul className="card-grid" aria-label={title}>
          {agents.map((agent) => (
            <li key={agent.id}>
              <AgentCard agent={agent} onDeleted={onDeleted} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
