import type { RunStatus } from '../../api/types.ts';
import { CHILD_CALL_TOOLS } from '../../lib/subagent-calls.ts';
import type { ToolItem } from '../../lib/transcript-items.ts';
import { prettyJson, toolCallLine } from '../../lib/text.ts';
import { ArtifactsCallCard } from './artifacts-call-card.tsx';
import { AwaitResultCard } from './await-result-card.tsx';
import { ChildCallCard } from './child-call-card.tsx';
import { ShellCallCard } from './shell-call-card.tsx';
import { RejectionNote, stateLabel, toolState, UnknownOutcomeNote } from './tool-state.tsx';
import { useTranscriptContext } from './transcript-context.ts';

/**
 * One tool call. Calls that start or follow child runs are shown as links to those children, the result of
 * `subagent_await` as a summary per child, `execute` as a shell block, `present_artifacts` as file cards;
 * any other call is a one-line summary that opens on its arguments and result.
 */
export function ToolCallCard({ item, runStatus }: { item: ToolItem; runStatus?: RunStatus }) {
  const context = useTranscriptContext();
  const awaiting =
    item.result === undefined &&
    (context.awaitingApproval.has(item.toolCallId) || runStatus === 'input_required');
  if (CHILD_CALL_TOOLS.has(item.name)) return <ChildCallCard item={item} awaiting={awaiting} />;
  if (item.name === 'subagent_await') return <AwaitResultCard item={item} />;
  const state = toolState(item, awaiting);
  if (item.name === 'execute') return <ShellCallCard item={item} state={state} />;
  if (item.name === 'present_artifacts' && state === 'done') return <ArtifactsCallCard item={item} />;
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
        <span className={`tool-state tool-state-${state}`}>{stateLabel(item, state)}</span>
      </summary>
      {state === 'rejected' ? <RejectionNote item={item} /> : null}
      {state === 'unknown' ? <UnknownOutcomeNote /> : null}
      <div className="tool-body">
        <h4>Arguments</h4>
        <pre tabIndex={0}>{prettyJson(item.args ?? {})}</pre>
        {item.result !== undefined ? (
          <>
            <h4>{state === 'error' ? 'Error' : 'Result'}</h4>
            <pre tabIndex={0}>{prettyJson(item.result.output)}</pre>
          </>
        ) : null}
      </div>
    </details>
  );
}
