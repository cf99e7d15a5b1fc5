import type { Agent, RunTreeNode } from '../../api/types.ts';
import { formatDuration, formatTime, formatUsage, modelLabel } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import { truncateEnd } from '../../lib/text.ts';
import { AppLink } from '../common/app-link.tsx';
import { StatusBadge } from '../common/status-badge.tsx';

export interface RunTreeNodeViewProps {
  node: RunTreeNode;
  agentsById: ReadonlyMap<string, Agent>;
  highlight: string | null;
}

export function RunTreeNodeView({ node, agentsById, highlight }: RunTreeNodeViewProps) {
  const { run } = node;
  const agent = agentsById.get(run.agent_id);
  const name = agent?.name ?? run.agent_id;
  return (
    <li>
      <article
        className={`run-node${run.id === highlight ? ' highlighted' : ''}`}
        aria-label={`${run.run_type} run of ${name}`}
        data-run-id={run.id}
        data-status={run.status}
      >
        <header>
          <strong>{name}</strong>
          <span className="pill">{run.run_type}</span>
          <StatusBadge status={run.status} />
          <span className="muted small">depth {run.depth}</span>
        </header>
        <p className="task">{truncateEnd(run.input.message, 240)}</p>
        <dl className="meta">
          <dt>Duration</dt>
          <dd>{run.started_at ? formatDuration(run.started_at, run.finished_at) : 'not started'}</dd>
          <dt>Tokens</dt>
          <dd>{formatUsage(run.usage)}</dd>
          <dt>Model</dt>
          <dd>{modelLabel(run.model_spec)}</dd>
          <dt>Started</dt>
          <dd>{formatTime(run.started_at)}</dd>
          <dt>Run</dt>
          <dd>
            <code>{run.id}</code>
            {run.run_type === 'chat' || run.run_type === 'resume' ? (
              <>
                {' '}
                · <AppLink to={paths.chat(run.conversation_id)}>conversation</AppLink>
              </>
            ) : (
              <>
                {' '}
                · thread <code>{run.thread_id}</code>
              </>
            )}
          </dd>
        </dl>
        {run.error ? (
          <p className={run.status === 'cancelled' ? 'run-notice tone-info' : 'error-message'}>
            <code className="error-code">{run.error.type}</code> {run.error.message}
          </p>
        ) : null}
      </article>
      {node.children.length > 0 ? (
        <ul className="run-children">
          {node.children.map((child) => (
            <RunTreeNodeView key={child.run.id} node={child} agentsById={agentsById} highlight={highlight} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
