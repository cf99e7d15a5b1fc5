import { useState, type FormEvent } from 'react';
import { useLeaveGuard } from '../../hooks/use-leave-guard.ts';
import type { Agent, AgentConfig, KnowledgeSource, Skill } from '../../api/types.ts';
import { configFromForm, type AgentFormState } from '../../lib/agent-form-state.ts';
import { isScriptedModel } from '../../lib/format.ts';
import { useSession } from '../../hooks/use-session.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { RemoteExpertFields } from './remote-expert-fields.tsx';
import { ExpertFields } from './expert-fields.tsx';
import { Field } from '../common/field.tsx';
import { SkillPicker } from './skill-picker.tsx';
import { KnowledgeSourcePicker } from './knowledge-source-picker.tsx';
import { SpecEditor } from './spec-editor.tsx';
import { SubagentAllowList } from './subagent-allow-list.tsx';
import { BudgetFields } from './budget-fields.tsx';
import { ToolChipsInput } from './tool-chips-input.tsx';
import { isAdmin } from '../../lib/user-rights.ts';

export interface AgentFormProps {
  isCreate: boolean;
  initial: AgentFormState;
  /** The stored config: keys the form does not edit (MCP servers, skills, limits) are kept. */
  baseConfig: AgentConfig;
  subagents: Agent[];
  /** Skills visible to the author, for the skill picker. */
  skills?: Skill[];
  /** Knowledge sources the user can read, for the picker; default none. */
  knowledgeSources?: KnowledgeSource[];
  onSubmit: (state: AgentFormState, config: AgentConfig) => Promise<void>;
  onCancel: () => void;
  /** The agent being edited, if it is stored already (its MCP secrets come back redacted). */
  agentId?: string;
}

/** Create or edit an agent, a subagent or an expert: one form, fields shown by backend. */
export function AgentForm({
  isCreate,
  initial,
  baseConfig,
  subagents,
  skills,
  knowledgeSources,
  onSubmit,
  onCancel,
  agentId,
}: AgentFormProps) {
  const [state, setState] = useState(initial);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  // What the server has: the form is dirty when it differs. A save in progress may leave the page (the
  // editor goes back to the agents after a clean save); a failed one keeps the guard.
  const [saved, setSaved] = useState(initial);
  const dirty = JSON.stringify(state) !== JSON.stringify(saved);
  useLeaveGuard(dirty && !busy ? 'This agent has unsaved changes. Leave without saving them?' : null);
  const set = <K extends keyof AgentFormState>(key: K, value: AgentFormState[K]) =>
    setState((current) => ({ ...current, [key]: value }));
  const { user } = useSession();
  const isChat = state.backend === 'chat';
  const isRemote = state.backend === 'a2a';
  const { config, specsError } = configFromForm(state, baseConfig);
  // Local and remote main agents alike may be published as experts.
  const expertFields = (
    <ExpertFields
      status={state.status}
      delegatable={state.delegatable}
      brief={state.delegationBrief}
      onStatus={(status) => set('status', status)}
      onDelegatable={(value) => set('delegatable', value)}
      onBrief={(brief) => set('delegationBrief', brief)}
    />
  );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (specsError) return;
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit(state, config);
      setSaved(state);
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="agent-form"
      onSubmit={(event) => void submit(event)}
      aria-label={isCreate ? 'Create agent' : 'Edit agent'}
    >
      <div className="form-grid">
        <Field id="agent-name" label="Name">
          {(control) => (
            <input
              {...control}
              value={state.name}
              onChange={(event) => set('name', event.target.value)}
              required
              maxLength={200}
            />
          )}
        </Field>
        <Field
          id="agent-slug"
          label="Slug"
          hint={
            isCreate
              ? 'Lowercase letters, digits, "_" or "-"; leave empty to derive it from the name. Cannot change later.'
              : 'The slug is fixed once created.'
          }
        >
          {(control) => (
            <input
              {...control}
              value={state.slug}
              onChange={(event) => set('slug', event.target.value)}
              disabled={!isCreate}
              pattern="[a-z][a-z0-9_\-]{1,62}"
            />
          )}
        </Field>
        <Field
          id="agent-backend"
          label="Backend"
          hint={
            <>
              A subagent is only reachable through a main agent&apos;s task tools; an a2a agent is another
              server&apos;s agent, registered by an admin. The backend cannot change later.
            </>
          }
        >
          {(control) => (
            <select
              {...control}
              value={state.backend}
              onChange={(event) => set('backend', event.target.value as AgentFormState['backend'])}
              disabled={!isCreate}
            >
              <option value="chat">chat (main agent or expert)</option>
              <option value="subagent">subagent</option>
              {isAdmin(user) || isRemote ? <option value="a2a">a2a (remote A2A expert)</option> : null}
            </select>
          )}
        </Field>
        <Field id="agent-visibility" label="Visibility">
          {(control) => (
            <select
              {...control}
              value={state.visibility}
              onChange={(event) => set('visibility', event.target.value as AgentFormState['visibility'])}
            >
              <option value="private">private (me, admins, grantees)</option>
              <option value="shared">shared (I can grant access)</option>
              <option value="public">public (every user)</option>
            </select>
          )}
        </Field>
      </div>

      <Field
        id="agent-description"
        label="Description"
        hint="Main agents see a subagent's description when choosing whom to hand a task to."
      >
        {(control) => (
          <textarea
            {...control}
            rows={2}
            value={state.description}
            onChange={(event) => set('description', event.target.value)}
          />
        )}
      </Field>

      {isRemote ? (
        <>
          <RemoteExpertFields
            cardUrl={state.cardUrl}
            authorization={state.authorization}
            onCardUrl={(value) => set('cardUrl', value)}
            onAuthorization={(value) => set('authorization', value)}
          />
          {expertFields}
        </>
      ) : (
        <>
          <Field id="agent-prompt" label="System prompt">
            {(control) => (
              <textarea
                {...control}
                rows={5}
                value={state.systemPrompt}
                onChange={(event) => set('systemPrompt', event.target.value)}
              />
            )}
          </Field>

          <div className="form-grid">
            <Field
              id="agent-model"
              label="Model"
              hint={
                <>
                  <code>provider:model</code>: <code>openai:…</code>, <code>anthropic:…</code>,{' '}
                  <code>openai-compatible:NAME:model</code>. <code>scripted:NAME</code> is{' '}
                  <strong>not an LLM</strong>: it plays the scenario file NAME. Empty: the server default.
                  {isScriptedModel(state.model) ? (
                    <strong className="scripted-note"> This agent is scripted.</strong>
                  ) : null}
                </>
              }
            >
              {(control) => (
                <input
                  {...control}
                  value={state.model}
                  onChange={(event) => set('model', event.target.value)}
                  placeholder="provider:model, e.g. openai:gpt-4o-mini"
                />
              )}
            </Field>
            <Field
              id="agent-approval"
              label="Tool approval mode"
              hint={
                <>
                  Sensitive tools are <code>write_file</code>, <code>edit_file</code> and <code>execute</code>
                  .{isChat ? '' : ' A subagent inherits the mode of the run that starts it.'}
                </>
              }
            >
              {(control) => (
                <select
                  {...control}
                  value={state.approvalMode}
                  onChange={(event) =>
                    set('approvalMode', event.target.value as AgentFormState['approvalMode'])
                  }
                >
                  <option value="">unset (default)</option>
                  <option value="default">default: ask before sensitive tools</option>
                  <option value="always_trust">always_trust: never ask</option>
                </select>
              )}
            </Field>
          </div>

          <ToolChipsInput tools={state.tools} onChange={(tools) => set('tools', tools)} />

          <SkillPicker
            skills={skills ?? []}
            selected={state.skills}
            onChange={(names) => set('skills', names)}
            config={config}
          />
          <KnowledgeSourcePicker
            sources={knowledgeSources ?? []}
            selected={state.knowledgeSources}
            onChange={(names) => set('knowledgeSources', names)}
          />
          <BudgetFields draft={state.budget} onChange={(draft) => set('budget', draft)} />
        </>
      )}

      {isChat ? (
        <>
          <SubagentAllowList
            subagents={subagents}
            selected={state.subagents}
            onChange={(slugs) => set('subagents', slugs)}
          />
          {expertFields}
          <SpecEditor
            text={state.specsText}
            onChange={(text) => set('specsText', text)}
            parseError={specsError}
            config={config}
            agentId={agentId}
          />
        </>
      ) : null}

      <ErrorMessage error={error} context="Could not save" />
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy || specsError !== null}>
          {busy ? 'Saving…' : isCreate ? 'Create' : 'Save'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
