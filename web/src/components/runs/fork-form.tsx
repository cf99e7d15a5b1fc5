import { useState, type FormEvent } from 'react';
import type { ForkBody, Run } from '../../api/types.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useSession } from '../../hooks/use-session.ts';
import { paths } from '../../lib/routes.ts';
import { ErrorMessage } from '../common/error-message.tsx';

/**
 * Forks a run after a step (docs/effects-and-forks.md#fork): with a message the fork is a new turn after that
 * step, without one it re-runs the run's input from there. The model and prompt need edit rights on the
 * agent (the server says so otherwise); tools only narrow. Opens the new conversation.
 */
export function ForkForm({ run, step, onClose }: { run: Run; step: number; onClose: () => void }) {
  const { api } = useSession();
  const [input, setInput] = useState('');
  const [model, setModel] = useState('');
  const [prompt, setPrompt] = useState('');
  const [tools, setTools] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const toolList = tools
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const overrides = {
      ...(model.trim() !== '' ? { model: model.trim() } : {}),
      ...(prompt.trim() !== '' ? { system_prompt: prompt } : {}),
      ...(toolList.length > 0 ? { tools: toolList } : {}),
    };
    const body: ForkBody = {
      after_step: step,
      ...(input.trim() !== '' ? { input } : {}),
      ...(Object.keys(overrides).length > 0 ? { agent_overrides: overrides } : {}),
    };
    setBusy(true);
    setError(undefined);
    try {
      const forked = await api.forkRun(run.id, body);
      navigate(paths.chat(forked.conversation.id));
    } catch (thrown) {
      setError(thrown);
      setBusy(false);
    }
  };

  return (
    <form
      className="fork-form"
      aria-label={`Fork after step ${step}`}
      onSubmit={(event) => void submit(event)}
    >
      <h3>{step === 0 ? 'Fork from the start' : `Fork after step ${step}`}</h3>
      <p className="muted small">
        A new conversation gets this run’s thread up to {step === 0 ? 'its input' : `step ${step}`}; this run
        is not changed. Leave the message empty to re-run from there.
      </p>
      <label>
        Message (optional)
        <textarea value={input} rows={2} onChange={(event) => setInput(event.target.value)} />
      </label>
      <label>
        Model (optional, agent owners)
        <input
          value={model}
          placeholder={run.model_spec}
          onChange={(event) => setModel(event.target.value)}
        />
      </label>
      <label>
        System prompt (optional, agent owners)
        <textarea value={prompt} rows={2} onChange={(event) => setPrompt(event.target.value)} />
      </label>
      <label>
        Only these tools (optional, comma-separated)
        <input value={tools} onChange={(event) => setTools(event.target.value)} />
      </label>
      <ErrorMessage error={error} context="Could not fork" />
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Forking…' : 'Fork and open'}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
