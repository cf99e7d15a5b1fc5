import { useMemo, useRef } from 'react';
import type { AgentConfig } from '../../api/types.ts';
import { useBuildReport } from '../../hooks/use-build-report.ts';
import { warningLine } from '../../lib/spec-lines.ts';
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

/**
 * `config.subagent_specs` as JSON, with the server's build report shown live as you type. The lines the
 * report points at are marked in the gutter, and each report entry can select its line.
 */
export function SpecEditor({ text, onChange, parseError, config, agentId }: SpecEditorProps) {
  const hasSpecs = (config.subagent_specs?.length ?? 0) > 0;
  const state = useBuildReport(hasSpecs && parseError === null ? config : null, undefined, agentId);
  const report = state.status === 'ready' ? state.report : state.status === 'loading' ? state.previous : null;
  const lines = useMemo(
    () => (report ? report.warnings.map((warning) => warningLine(text, warning)) : []),
    [report, text],
  );
  const marked = new Map<number, boolean>();
  report?.warnings.forEach((warning, index) => {
    const line = lines[index];
    if (line !== null && line !== undefined) marked.set(line, (marked.get(line) ?? false) || warning.dropped);
  });
  const lineCount = Math.max(12, text.split('\n').length);
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);

  const showLine = (line: number) => {
    const textarea = area.current;
    if (!textarea) return;
    const starts = [0];
    for (let index = 0; index < text.length; index++) if (text[index] === '\n') starts.push(index + 1);
    const start = starts[line - 1] ?? 0;
    const end = (starts[line] ?? text.length + 1) - 1;
    textarea.focus();
    textarea.setSelectionRange(start, Math.max(start, end));
    const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 18;
    textarea.scrollTop = Math.max(0, (line - 3) * lineHeight);
  };

  return (
    <fieldset className="fieldset spec-editor">
      <legend>Inline subagent specs</legend>
      <div className="spec-columns">
        <div className="field">
          <label htmlFor="agent-specs">Inline subagent specs (JSON)</label>
          <div className="spec-code">
            <div className="spec-gutter" ref={gutter} aria-hidden="true">
              {Array.from({ length: lineCount }, (_, index) => {
                const line = index + 1;
                const mark = marked.get(line);
                return (
                  <span
                    key={line}
                    className={mark === undefined ? undefined : mark ? 'marked drop' : 'marked'}
                    data-line={line}
                  >
                    {line}
                  </span>
                );
              })}
            </div>
            <textarea
              id="agent-specs"
              ref={area}
              className="code"
              rows={12}
              wrap="off"
              spellCheck={false}
              value={text}
              onChange={(event) => onChange(event.target.value)}
              onScroll={(event) => {
                if (gutter.current) gutter.current.scrollTop = event.currentTarget.scrollTop;
              }}
              placeholder='[{"name": "…", "description": "…", "system_prompt": "…", "tools": ["read_file"]}]'
              aria-describedby="agent-specs-help"
              aria-invalid={parseError !== null}
            />
          </div>
          <small id="agent-specs-help" className="help">
            A JSON array of <code>{'{name, description, system_prompt, tools?, model?}'}</code>. Bad entries
            are dropped silently at run time; the report says which and why, and marks their lines. Each spec
            needs at least one tool in <code>tools</code>; a missing <code>model</code> inherits this
            agent&apos;s.{' '}
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
        <BuildReportPanel state={state} lines={lines} onShowLine={showLine} />
      </div>
    </fieldset>
  );
}
