import type { RunStatus } from '../../api/types.ts';
import { CHILD_CALL_TOOLS } from '../../lib/subagent-calls.ts';
import type { ToolItem } from '../../lib/transcript-items.ts';
import { prettyJson, toolCallLine } from '../../lib/text.ts';
import { AwaitResultCard } from './await-result-card.tsx';
import { ChildCallCard } from './child-call-card.tsx';
import { useTranscriptContext } from './transcript-context.ts';

export type ToolState = 'running' | 'awaiting' | 'error' | 'done';

const STATE_LABELS: Record<ToolState, string> = {
  running: 'running…',
  awaiting: 'awaiting approval',
  error: 'error',
  done: 'done',
};

/** A call without a result is either running or — when a human has to decide first — waiting for that. */
export function toolState(item: ToolItem, awaiting: boolean): ToolState {
  if (item.result !== undefined) return item.result.isError ? 'error' : 'done';
  return awaiting ? 'awaiting' : 'running';
}

/**
 * One tool call. Calls that start or follow child runs are shown as links to those children, the result of
 * `subagent_await` as a summary per child; any other call is a one-line summary that opens on its arguments
 * and result.
 */
export function ToolCallCard({ item, runStatus }: { item: ToolItem; runStatus?: RunStatus }) {
  const context = useTranscriptContext();
  const awaiting =
    item.result === undefined && (context.awaitingApproval.has(item.toolCallId) || runStatus === 'input_required');
  if (CHILD_CALL_TOOLS.has(item.name)) return <ChildCallCard item={item} awaiting={awaiting} />;
  if (item.name === 'subagent_await') return <AwaitResultCard item={item} />;
  const state = toolState(item, awaiting);
  return (
    <details
      className={`tool-card tool-${state}`}
      aria-label={`Tool call ${item.name}`}
      data-tool={item.name}
      data-state={state}
    >
      <summary>
        <span className="tool-glyph" aria-hidden="true">
          ⚙
        </span>{' '}
        <code>{toolCallLine(item.name, item.args, 90)}</code>{' '}
        <span className={`tool-state tool-state-${state}`}>{STATE_LABELS[state]}</span>
      </summary>
      <div className="tool-body">
        <h4>Arguments</h4>
        <pre tabIndex={0}>{prettyJson(item.args ?? {})}</pre>
        {item.result !== undefined ? (
          <>
            <h4>{item.result.isError ? 'Error' : 'Result'}</h4>
            <pre tabIndex={0}>{prettyJson(item.result.output)}</pre>
          </>
        ) : null}
      </div>
    </details>
  );
}
