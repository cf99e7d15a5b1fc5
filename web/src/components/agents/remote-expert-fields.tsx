import { Field } from '../common/field.tsx';
export interface RemoteExpertFieldsProps {
  cardUrl: string;
  authorization: string;
  onCardUrl: (value: string) => void;
  onAuthorization: (value: string) => void;
}

/** Where a remote A2A expert lives and how this server signs in to it (admins only; docs/interoperability.md). */
export function RemoteExpertFields({
  cardUrl,
  authorization,
  onCardUrl,
  onAuthorization,
}: RemoteExpertFieldsProps) {
  return (
    <fieldset className="remote-expert-fields">
      <legend>Remote A2A agent</legend>
      <Field
        id="agent-card-url"
        label="Agent card URL"
        hint={
          <>
            The remote agent&apos;s card. Each delegation to this expert becomes a task there, streamed back
            into the delegating run; cancelling the run cancels the task.
          </>
        }
      >
        {(control) => (
          <input
            {...control}
            type="url"
            value={cardUrl}
            onChange={(event) => onCardUrl(event.target.value)}
            placeholder="https://agents.example.com/a2a/analyst/.well-known/agent-card.json"
            required
          />
        )}
      </Field>
      <Field
        id="agent-remote-authorization"
        label="Authorization header"
        hint={
          <>
            Write-only: once saved it reads back as <code>[redacted]</code>, which keeps the stored value. It
            is sent only to the card&apos;s own host.
          </>
        }
      >
        {(control) => (
          <input
            {...control}
            type="password"
            autoComplete="off"
            value={authorization}
            onChange={(event) => onAuthorization(event.target.value)}
            placeholder="Bearer …"
          />
        )}
      </Field>
    </fieldset>
  );
}
