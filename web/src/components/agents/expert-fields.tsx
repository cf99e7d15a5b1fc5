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
        <div className="field">
          <label htmlFor="agent-status">Status</label>
          <select
            id="agent-status"
            value={status}
            onChange={(event) => onStatus(event.target.value as 'draft' | 'published')}
          >
            <option value="draft">draft</option>
            <option value="published">published (an expert)</option>
          </select>
        </div>
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
      <div className="field">
        <label htmlFor="agent-brief">Delegation brief</label>
        <textarea
          id="agent-brief"
          rows={2}
          value={brief}
          onChange={(event) => onBrief(event.target.value)}
          aria-describedby="agent-brief-help"
        />
        <small id="agent-brief-help" className="help">
          What delegating experts are told about this one; empty falls back to the description.
        </small>
      </div>
    </fieldset>
  );
}
