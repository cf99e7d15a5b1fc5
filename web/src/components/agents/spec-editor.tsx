import type { AgentConfig } from '../../api/types.ts';
import { BuildReportPanel } from './build-report-panel.tsx';

export interface SpecEditorProps {
  text: string;
  onChange: (text: string) => void;
  parseError: string | null;
  /** The config as the form would save it; the live build report checks it. */
  config: AgentConfig;
  /** The agent being edited, if it is stored already. */
  agentId?: string;
}

const EXAMPLE = JSON.stringify(
  [
    {
      name: 'fact-checker',
      description: 'Checks one claim against the project files.',
      system_prompt: 'Check the claim you are given; answer true, false or unknown with a reason.',
      tools: ['read_file', 'grep'],
    },
  ],
  null,
  2,
);

/** `config.subagent_specs` as JSON, with the server's build report shown live as you type. */
export function SpecEditor({ text, onChange, parseError, config, agentId }: SpecEditorProps) {
  const hasSpecs = (config.subagent_specs?.length ?? 0) > 0;
  return (
    <fieldset className="fieldset spec-editor">
      <legend>Inline subagent specs</legend>
      <div className="spec-columns">
        <div className="field">
          <label htmlFor="agent-specs">Inline subagent specs (JSON)</label>
          <textarea
            id="agent-specs"
            className="code"
            rows={12}
            spellCheck={false}
            value={text}
            onChange={(event) => onChange(event.target.value)}
            placeholder='[{"name": "…", "description": "…", "system_prompt": "…", "tools": ["read_file"]}]'
            aria-describedby="agent-specs-help"
            aria-invalid={parseError !== null}
          />
          <small id="agent-specs-help" className="help">
            A JSON array of <code>{'{name, description, system_prompt, tools?, model?}'}</code>. Bad entries
            are dropped silently at run time; the report on the right says which and why. Each spec needs at
            least one tool in <code>tools</code>; a missing <code>model</code> inherits this agent&apos;s.{' '}
            {text.trim() === '' ? (
              <button type="button" className="link-button" onClick={() => onChange(EXAMPLE)}>
                Insert an example
              </button>
            ) : null}
          </small>
          {parseError ? (
            <p className="error-message" role="alert">
              <code className="error-code">invalid_json</code> {parseError}
            </p>
          ) : null}
        </div>
        <BuildReportPanel config={hasSpecs && parseError === null ? config : null} agentId={agentId} />
      </div>
    </fieldset>
  );
}
