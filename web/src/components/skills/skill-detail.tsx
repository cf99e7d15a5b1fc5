import { useState } from 'react';
import type { Skill } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { useSession } from '../../hooks/use-session.ts';
import { ErrorMessage } from '../common/error-message.tsx';

export interface SkillDetailProps {
  name: string;
  canManage: boolean;
  onChanged: (skill: Skill) => void;
}

/** One skill: its files and its SKILL.md as the agents read it; owners change its visibility here. */
export function SkillDetailPanel({ name, canManage, onChanged }: SkillDetailProps) {
  const { api } = useSession();
  const detail = useAsync((signal) => api.getSkill(name, signal), [api, name]);
  const [error, setError] = useState<unknown>(undefined);

  const changeVisibility = async (visibility: Skill['visibility']) => {
    setError(undefined);
    try {
      const skill = await api.setSkillVisibility(name, visibility);
      detail.setData((current) => (current ? { ...current, skill } : current));
      onChanged(skill);
    } catch (thrown) {
      setError(thrown);
    }
  };

  if (detail.error) return <ErrorMessage error={detail.error} context={`Could not load skill ${name}`} />;
  if (!detail.data) return <p role="status">Loading {name}…</p>;
  const { skill, files, skill_md: skillMd } = detail.data;
  return (
    <section className="skill-detail" aria-label={`Skill ${skill.name}`}>
      <h2>
        <code>{skill.name}</code>
      </h2>
      <p>{skill.description}</p>
      {canManage ? (
        <div className="field inline-field">
          <label htmlFor="skill-detail-visibility">Visibility</label>
          <select
            id="skill-detail-visibility"
            value={skill.visibility}
            onChange={(event) => void changeVisibility(event.target.value as Skill['visibility'])}
          >
            <option value="private">private</option>
            <option value="shared">shared</option>
            <option value="public">public</option>
          </select>
        </div>
      ) : (
        <p className="muted">Visibility: {skill.visibility}</p>
      )}
      <ErrorMessage error={error} context="Could not change the visibility" />
      <h3>Files</h3>
      <ul className="skill-files">
        {files.map((file) => (
          <li key={file.path}>
            <code>{file.path}</code> <span className="muted">({file.size} bytes)</span>
          </li>
        ))}
      </ul>
      <h3>SKILL.md</h3>
      <pre className="skill-md" aria-label="SKILL.md" tabIndex={0}>
        {skillMd}
      </pre>
      <p className="muted">
        At run time the skill is projected read-only into the workdir at <code>.skills/{skill.name}/</code>.
      </p>
    </section>
  );
}
