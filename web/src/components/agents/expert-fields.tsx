import { Field } from '../common/field.tsx';

export interface ExpertFieldsProps {
  status: 'draft' | 'published';
  delegatable: boolean;
  brief: string;
  onStatus: (status: 'draft' | 'published') => void;
  onDelegatable: (value: boolean) => void;
  onBrief: (brief: string) => void;
}

/** Expert fields of a chat agent: publishing makes it an expert others may delegate to. */
export function ExpertFields({
  status,
  delegatable,
  brief,
  onStatus,
  onDelegatable,
  onBrief,
}: ExpertFieldsProps) {
  return (
    <fieldset className="fieldset">
      <legend>Expert</legend>
      <div className="form-grid">
        <Field id="agent-status" label="Status">
          {(control) => (
            <select
              {...control}
              value={status}
              onChange={(event) => onStatus(event.target.value as 'draft' | 'published')}
            >
              <option value="draft">draft</option>
              <option value="published">published (an expert)</option>
            </select>
          )}
        </Field>
        <div className="field checkbox-field">
          <label>
            <input
              type="checkbox"
              checked={delegatable}
              onChange={(event) => onDelegatable(event.target.checked)}
            />
            Delegatable
          </label>
          <small className="help">Other experts may hand it tasks with the delegate tool.</small>
        </div>
      </div>
      <Field
        id="agent-brief"
        label="Delegation brief"
        hint={<>What delegating experts are told about this one; empty falls back to the description.</>}
      >
        {(control) => (
          <textarea {...control} rows={2} value={brief} onChange={(event) => onBrief(event.target.value)} />
        )}
      </Field>
    </fieldset>
  );
}
