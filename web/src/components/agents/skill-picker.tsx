import type { AgentConfig, Skill } from '../../api/types.ts';
import { useBuildReport } from '../../hooks/use-build-report.ts';
import { BuildWarningList } from './build-warning-list.tsx';

export interface SkillPickerProps {
  skills: Skill[];
  selected: string[];
  onChange: (names: string[]) => void;
  /** The config as the form would save it: its skill entries of the build report are shown live. */
  config: AgentConfig;
}

const SKILL_CODES = new Set(['unknown_skill', 'invalid_skill']);

/** `config.skills`: which skills this agent's runs get under `.skills/` and in their system prompt. */
export function SkillPicker({ skills, selected, onChange, config }: SkillPickerProps) {
  const known = new Set(skills.map((skill) => skill.name));
  const unknown = selected.filter((name) => !known.has(name));
  const report = useBuildReport(selected.length > 0 ? { ...config, subagent_specs: undefined } : null);
  const warnings =
    report.status === 'ready'
      ? report.report.warnings.filter((warning) => SKILL_CODES.has(warning.reason) && warning.spec === null)
      : [];
  const toggle = (name: string, on: boolean) =>
    onChange(on ? [...selected, name] : selected.filter((item) => item !== name));
  return (
    <fieldset className="fieldset skill-picker" aria-describedby="skill-picker-help">
      <legend>Skills</legend>
      <small id="skill-picker-help" className="help">
        Projected read-only into the workdir at <code>.skills/NAME/</code> for this agent&apos;s runs and
        listed in its prompt. Only skills the run&apos;s user may use are projected; subagents get only their
        own.
      </small>
      {skills.length === 0 && unknown.length === 0 ? (
        <p className="empty">No skills visible to you.</p>
      ) : null}
      <ul className="checkbox-list">
        {skills.map((skill) => (
          <li key={skill.id}>
            {/* The description stays outside the label: the checkbox is named by the skill name alone. */}
            <label>
              <input
                type="checkbox"
                checked={selected.includes(skill.name)}
                onChange={(event) => toggle(skill.name, event.target.checked)}
              />
              <code>{skill.name}</code>
            </label>{' '}
            <span className="muted">{skill.description}</span>
          </li>
        ))}
        {unknown.map((name) => (
          <li key={name}>
            <label>
              <input type="checkbox" checked onChange={() => toggle(name, false)} />
              <code>{name}</code> <span className="muted">(not visible to you)</span>
            </label>
          </li>
        ))}
      </ul>
      {warnings.length > 0 ? (
        <div className="build-report" aria-label="Skill warnings" aria-live="polite">
          <BuildWarningList warnings={warnings} />
        </div>
      ) : null}
    </fieldset>
  );
}
