import type { BudgetDraft } from '../../lib/agent-form-state.ts';

const FIELDS: { key: keyof BudgetDraft; label: string; help: string }[] = [
  { key: 'tokens', label: 'Max tokens', help: 'input plus output tokens of every model call' },
  { key: 'model_calls', label: 'Max LLM calls', help: 'calls to the model (model_calls)' },
  { key: 'tool_calls', label: 'Max tool calls', help: 'tool executions' },
  { key: 'wall_ms', label: 'Max wall time (ms)', help: 'from the start of the run' },
];

/** `config.budget` (docs/budgets.md): what one run tree of this agent may spend; empty means unlimited. */
export function BudgetFields({
  draft,
  onChange,
}: {
  draft: BudgetDraft;
  onChange: (draft: BudgetDraft) => void;
}) {
  return (
    <fieldset className="budget-fields">
      <legend>Budget per run tree</legend>
      <p className="help" id="agent-budget-help">
        A run that reaches a limit ends <code>failed</code> with <code>budget_exhausted</code>; its parent
        gets that as the tool result. Children are carved from what remains. Empty means no limit; a request
        may only narrow it.
      </p>
      <div className="form-grid">
        {FIELDS.map((field) => (
          <div className="field" key={field.key}>
            <label htmlFor={`agent-budget-${field.key}`}>{field.label}</label>
            <input
              id={`agent-budget-${field.key}`}
              type="number"
              min={1}
              step={1}
              inputMode="numeric"
              value={draft[field.key]}
              placeholder="no limit"
              title={field.help}
              aria-describedby="agent-budget-help"
              onChange={(event) => onChange({ ...draft, [field.key]: event.target.value })}
            />
          </div>
        ))}
      </div>
    </fieldset>
  );
}
