import { useState } from 'react';
import type { Skill } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useSession } from '../../hooks/use-session.ts';
import { paths } from '../../lib/routes.ts';
import { ConfirmDialog } from '../common/confirm-dialog.tsx';
import { DataTable } from '../common/data-table.tsx';
import { ErrorMessage } from '../common/error-message.tsx';
import { SkillDetailPanel } from './skill-detail.tsx';
import { SkillUploadForm } from './skill-upload-form.tsx';
import { canManage } from '../../lib/user-rights.ts';

/** Skills I can use: upload, list, view SKILL.md, delete (docs/skills-and-knowledge.md). */
export function SkillsPage({ selected }: { selected: string | null }) {
  const { api, user } = useSession();
  const skills = useAsync((signal) => api.listSkills(signal), [api]);
  const [deleting, setDeleting] = useState<Skill | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const mayManage = (skill: Skill) => canManage(user, skill.owner_id);
  const replaceInList = (skill: Skill) =>
    skills.setData((current) =>
      [...(current ?? []).filter((item) => item.id !== skill.id), skill].sort(byName),
    );

  const remove = async (skill: Skill) => {
    setBusy(true);
    setError(undefined);
    try {
      await api.deleteSkill(skill.id);
      skills.setData((current) => current?.filter((item) => item.id !== skill.id));
      if (selected === skill.name) navigate(paths.skills());
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
      setDeleting(null);
    }
  };

  return (
    <main className="page skills-page">
      <h1>Skills</h1>
      <p className="muted">
        A skill is a folder of instructions (<code>SKILL.md</code>) and files. Agents and subagents select
        skills by name in their config; each run gets its skills read-only under <code>.skills/</code> and is
        told to read <code>SKILL.md</code> before using one.
      </p>
      <SkillUploadForm
        onUploaded={(saved) => {
          replaceInList(saved.skill);
          navigate(paths.skills(saved.skill.name));
        }}
      />
      <ErrorMessage error={error ?? skills.error} context="Skills" />
      {skills.loading && !skills.data ? <p role="status">Loading skills…</p> : null}
      {skills.data?.length === 0 ? <p className="empty">No skills visible to you yet.</p> : null}
      <DataTable
        className="skills-table"
        caption="Skills you can use"
        rows={skills.data ?? []}
        rowKey={(skill) => skill.id}
        rowProps={(skill) => ({ 'aria-current': skill.name === selected ? 'true' : undefined })}
        columns={[
          {
            header: 'Name',
            cell: (skill) => (
              <>
                <code>{skill.name}</code>
                {skill.owner_id === user?.id ? <span className="muted"> (yours)</span> : null}
              </>
            ),
          },
          { header: 'Description', cell: (skill) => skill.description },
          { header: 'Visibility', cell: (skill) => skill.visibility },
          { header: 'Files', cell: (skill) => skill.file_count },
          {
            header: 'Actions',
            actions: true,
            className: 'button-row',
            cell: (skill) => (
              <>
                <button type="button" className="small" onClick={() => navigate(paths.skills(skill.name))}>
                  View
                </button>
                {mayManage(skill) ? (
                  <button
                    type="button"
                    className="danger small"
                    onClick={() => setDeleting(skill)}
                    aria-label={`Delete ${skill.name}`}
                  >
                    Delete
                  </button>
                ) : null}
              </>
            ),
          },
        ]}
      />
      {selected ? (
        <SkillDetailPanel
          key={selected}
          name={selected}
          canManage={skills.data?.some((skill) => skill.name === selected && mayManage(skill)) ?? false}
          onChanged={replaceInList}
        />
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          message="Agents that select it stop getting it on their next run. Its name stays yours: upload a skill of that name to bring it back."
          confirmLabel="Delete"
          busy={busy}
          onConfirm={() => void remove(deleting)}
          onCancel={() => setDeleting(null)}
        />
      ) : null}
    </main>
  );
}

function byName(left: Skill, right: Skill): number {
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}
