import { useState, type KeyboardEvent } from 'react';
import { parseToolList } from '../../lib/agent-form-state.ts';

export interface ToolChipsInputProps {
  tools: string[];
  onChange: (tools: string[]) => void;
}

/** Tool names and patterns as chips; typing a comma, a space or Enter adds what was typed. */
export function ToolChipsInput({ tools, onChange }: ToolChipsInputProps) {
  const [draft, setDraft] = useState('');

  const commit = (text: string) => {
    const added = parseToolList(text).filter((tool) => !tools.includes(tool));
    if (added.length > 0) onChange([...tools, ...added]);
    setDraft('');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      commit(draft);
    } else if (event.key === 'Backspace' && draft === '' && tools.length > 0) {
      onChange(tools.slice(0, -1));
    }
  };

  return (
    <div className="field">
      <label htmlFor="agent-tools">Tools</label>
      <div className="chips">
        {tools.map((tool) => (
          <span key={tool} className="chip">
            <code>{tool}</code>
            <button
              type="button"
              aria-label={`Remove tool ${tool}`}
              onClick={() => onChange(tools.filter((item) => item !== tool))}
            >
              ×
            </button>
          </span>
        ))}
        <input
          id="agent-tools"
          value={draft}
          onChange={(event) => {
            const value = event.target.value;
            if (/[\s,]$/.test(value)) commit(value);
            else setDraft(value);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => commit(draft)}
          placeholder={tools.length === 0 ? 'read_file, ls, mcp__github__*' : 'add a tool'}
          aria-describedby="agent-tools-help"
        />
      </div>
      <small id="agent-tools-help" className="help">
        Tool names separated by commas. <code>*</code> selects every tool available;{' '}
        <code>mcp__server__*</code> (any prefix ending in <code>*</code>) selects every tool whose name starts
        with it, e.g. all tools of one MCP server. No tools listed: every built-in tool. Inline specs resolve
        their tools against this agent&apos;s own set: a subagent never gets a tool its parent lacks.
      </small>
    </div>
  );
}
