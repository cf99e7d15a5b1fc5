import type { Agent } from '../../api/types.ts';

export interface SubagentAllowListProps {
  subagents: Agent[];
  selected: string[];
  onChange: (slugs: string[]) => void;
}

/** Which registered subagents this agent may call. Nothing checked means every visible subagent. */
export function SubagentAllowList({ subagents, selected, onChange }: SubagentAllowListProps) {
  const known = new Set(subagents.map((agent) => agent.slug));
  const unknown = selected.filter((slug) => !known.has(slug));
  const toggle = (slug: string, on: boolean) =>
    onChange(on ? [...selected, slug] : selected.filter((item) => item !== slug));
  return (
    <fieldset className="fieldset" aria-describedby="allow-list-help">
      <legend>Subagent allow-list</legend>
      <small id="allow-list-help" className="help">
        Nothing checked: every subagent visible to the user at run time. A list whose subagents have all
        become invisible allows none (it fails closed).
      </small>
      {subagents.length === 0 && unknown.length === 0 ? (
        <p className="empty">No subagents visible to you.</p>
      ) : null}
      <ul className="checkbox-list">
        {subagents.map((agent) => (
          <li key={agent.id}>
            <label>
              <input
                type="checkbox"
                checked={selected.includes(agent.slug)}
                onChange={(event) => toggle(agent.slug, event.target.checked)}
              />
              {agent.name} <code>{agent.slug}</code>
            </label>
          </li>
        ))}
        {unknown.map((slug) => (
          <li key={slug}>
            <label>
              <input type="checkbox" checked onChange={() => toggle(slug, false)} />
              <code>{slug}</code> <span className="muted">(not visible to you)</span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
