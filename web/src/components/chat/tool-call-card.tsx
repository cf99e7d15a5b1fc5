import type { ToolItem } from '../../lib/transcript-items.ts';
import { prettyJson, toolCallLine } from '../../lib/text.ts';

/** One tool call: a one-line summary, and arguments and result when opened. */
export function ToolCallCard({ item }: { item: ToolItem }) {
  const state = item.result === undefined ? 'running' : item.result.isError ? 'error' : 'done';
  const stateLabel = { running: 'running…', error: 'error', done: 'done' }[state];
  return (
    <details
      className={`tool-card tool-${state}`}
      aria-label={`Tool call ${item.name}`}
      data-tool={item.name}
    >
      <summary>
        <span className="tool-glyph" aria-hidden="true">
          ⚙
        </span>{' '}
        <code>{toolCallLine(item.name, item.args, 90)}</code>{' '}
        <span className={`tool-state tool-state-${state}`}>{stateLabel}</span>
      </summary>
      <div className="tool-body">
        <h4>Arguments</h4>
        <pre>{prettyJson(item.args ?? {})}</pre>
        {item.result !== undefined ? (
          <>
            <h4>{item.result.isError ? 'Error' : 'Result'}</h4>
            <pre>{prettyJson(item.result.output)}</pre>
          </>
        ) : null}
      </div>
    </details>
  );
}
