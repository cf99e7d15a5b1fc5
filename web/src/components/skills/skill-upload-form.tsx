import { useState, type FormEvent } from 'react';
import type { SavedSkill, Skill } from '../../api/types.ts';
import { useSession } from '../../hooks/use-session.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { Field } from '../common/field.tsx';

/** Upload a `.zip` or `.tar.gz` skill archive; the server checks everything (paths, links, sizes, SKILL.md). */
export function SkillUploadForm({ onUploaded }: { onUploaded: (saved: SavedSkill) => void }) {
  const { api } = useSession();
  const [file, setFile] = useState<File | null>(null);
  const [visibility, setVisibility] = useState<Skill['visibility']>('private');
  const [replace, setReplace] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (file === null) return;
    const form = event.currentTarget;
    setBusy(true);
    setError(undefined);
    try {
      onUploaded(await api.uploadSkill(file, { visibility, replace }));
      setFile(null);
      form.reset();
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="skill-upload" onSubmit={(event) => void submit(event)} aria-label="Upload a skill">
      <div className="form-grid">
        <Field
          id="skill-archive"
          label="Skill archive"
          hint={
            <>
              A <code>.zip</code> or <code>.tar.gz</code> of a folder with <code>SKILL.md</code> (front matter{' '}
              <code>name</code> and <code>description</code>) and any files. No links, no <code>..</code>.
            </>
          }
        >
          {(control) => (
            <input
              {...control}
              type="file"
              accept=".zip,.tar.gz,.tgz,application/zip,application/gzip"
              onChange={(event) => setFile(event.target.files?.[0] ?? null)}
            />
          )}
        </Field>
        <Field id="skill-visibility" label="Visibility">
          {(control) => (
            <select
              {...control}
              value={visibility}
              onChange={(event) => setVisibility(event.target.value as Skill['visibility'])}
            >
              <option value="private">private (me, admins, grantees)</option>
              <option value="shared">shared (I can grant access)</option>
              <option value="public">public (every user)</option>
            </select>
          )}
        </Field>
      </div>
      <label className="toggle">
        <input type="checkbox" checked={replace} onChange={(event) => setReplace(event.target.checked)} />
        Replace my skill of the same name (new version)
      </label>
      <ErrorMessage error={error} context="Could not upload" />
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy || file === null}>
          {busy ? 'Uploading…' : 'Upload skill'}
        </button>
      </div>
    </form>
  );
}
