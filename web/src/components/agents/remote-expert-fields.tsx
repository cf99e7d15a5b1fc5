export interface RemoteExpertFieldsProps {
  cardUrl: string;
  authorization: string;
  onCardUrl: (value: string) => void;
  onAuthorization: (value: string) => void;
}

/** Where a remote A2A expert lives and how this server signs in to it (admins only; SPEC §11). */
export function RemoteExpertFields({
  cardUrl,
  authorization,
  onCardUrl,
  onAuthorization,
}: RemoteExpertFieldsProps) {
  return (
    <fieldset className="remote-expert-fields">
      <legend>Remote A2A agent</legend>
      <div className="field">
        <label htmlFor="agent-card-url">Agent card URL</label>
        <input
          id="agent-card-url"
          type="url"
          value={cardUrl}
          onChange={(event) => onCardUrl(event.target.value)}
          placeholder="https://agents.example.com/a2a/analyst/.well-known/agent-card.json"
          required
          aria-describedby="agent-card-url-help"
        />
        <small id="agent-card-url-help" className="help">
          The remote agent&apos;s card. Each delegation to this expert becomes a task there, streamed back
          into the delegating run; cancelling the run cancels the task.
        </small>
      </div>
      <div className="field">
        <label htmlFor="agent-remote-authorization">Authorization header</label>
        <input
          id="agent-remote-authorization"
          type="password"
          autoComplete="off"
          value={authorization}
          onChange={(event) => onAuthorization(event.target.value)}
          placeholder="Bearer …"
          aria-describedby="agent-remote-authorization-help"
        />
        <small id="agent-remote-authorization-help" className="help">
          Write-only: once saved it reads back as <code>[redacted]</code>, which keeps the stored value. It is
          sent only to the card&apos;s own host.
        </small>
      </div>
    </fieldset>
  );
}
