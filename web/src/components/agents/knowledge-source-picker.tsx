import type { KnowledgeSource } from '../../api/types.ts';
import { paths } from '../../lib/routes.ts';
import { AppLink } from '../common/app-link.tsx';

export interface KnowledgeSourcePickerProps {
  sources: KnowledgeSource[];
  selected: string[];
  onChange: (names: string[]) => void;
}

/** Which knowledge sources this agent's `knowledge_search` reads (`config.knowledge_sources`). */
export function KnowledgeSourcePicker({ sources, selected, onChange }: KnowledgeSourcePickerProps) {
  const known = new Set(sources.flatMap((source) => [source.name, source.id]));
  const unknown = selected.filter((name) => !known.has(name));
  const isSelected = (source: KnowledgeSource) =>
    selected.includes(source.name) || selected.includes(source.id);
  const toggle = (source: KnowledgeSource, on: boolean) =>
    onChange(
      on ? [...selected, source.name] : selected.filter((item) => item !== source.name && item !== source.id),
    );
  return (
    <fieldset className="fieldset" aria-describedby="knowledge-picker-help">
      <legend>Knowledge sources</legend>
      <small id="knowledge-picker-help" className="help">
        Checked sources get the <code>knowledge_search</code> tool on this agent only (a subagent searches its
        own sources, never its parent&apos;s). Each search runs with the access of the user of the run.{' '}
        <AppLink to={paths.knowledge()}>Manage knowledge sources</AppLink>
      </small>
      {sources.length === 0 && unknown.length === 0 ? (
        <p className="empty">No knowledge sources visible to you.</p>
      ) : null}
      <ul className="checkbox-list">
        {sources.map((source) => (
          <li key={source.id}>
            <label>
              <input
                type="checkbox"
                checked={isSelected(source)}
                onChange={(event) => toggle(source, event.target.checked)}
              />
              <code>{source.name}</code> <span className="muted">{source.description}</span>
            </label>
          </li>
        ))}
        {unknown.map((name) => (
          <li key={name}>
            <label>
              <input
                type="checkbox"
                checked
                onChange={() => onChange(selected.filter((item) => item !== name))}
              />
              <code>{name}</code>{' '}
              <span className="muted">(not visible to you: knowledge_search leaves it out)</span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
