import { useId, useState } from 'react';
import { isTerminalStatus, type RunStatus } from '../../api/types.ts';
import { useNow } from '../../hooks/use-now.ts';
import { formatDuration } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import { clockEnd, isWaitingToResume, workerLostOf, workerLostText } from '../../lib/run-phase.ts';
import { CHILD_CALL_VERBS, childCallTarget } from '../../lib/subagent-calls.ts';
import { presentStatus } from '../../lib/run-status.ts';
import { prettyJson } from '../../lib/text.ts';
import type { PanelEntry } from '../../lib/subagent-panel.ts';
import type { ToolItem } from '../../lib/transcript-items.ts';
import { verdictFromResultText } from '../../lib/verdict.ts';
import { AppLink } from '../common/app-link.tsx';
import { VerdictBadge } from '../common/verdict-badge.tsx';
import { InlineChildTranscript } from './inline-child-transcript.tsx';
import { waitingLabel } from './tool-state.tsx';
import { useTranscriptContext } from './transcript-context.ts';

/** Revisions a grader may ask for at most (`config.grader.max_revisions`, docs/verified-delegation.md). */
const MAX_REVISIONS = 5;

/** The run that gave a call's result: its last revision (tool call id `…:revision:N`), or the child itself. */
function lastAnswer(
  byToolCall: ReadonlyMap<string, PanelEntry>,
  toolCallId: string,
  entry: PanelEntry | undefined,
): PanelEntry | undefined {
  for (let revision = MAX_REVISIONS; revision >= 1; revision -= 1) {
    const revised = byToolCall.get(`${toolCallId}:revision:${revision}`);
    if (revised) return revised;
  }
  return entry;
}

/**
 * `task`, `delegate` and `subagent_*` calls as a small card: "→ Researcher · Running 2.3 s · Open". Open
 * shows the child's transcript right here (live while it runs); the raw arguments and result stay one
 * click further.
 */
export function ChildCallCard({ item, awaiting }: { item: ToolItem; awaiting: boolean }) {
  const context = useTranscriptContext();
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const target = childCallTarget(item.name, item.args, item.result?.output);
  // The child this call started (by its tool call id), or the one it names (status, cancel, steer).
  const entry =
    context.childByToolCall.get(item.toolCallId) ??
    (target.runId === null ? undefined : context.childByRunId.get(target.runId));
  const name =
    (entry && context.childLabels.get(entry.run_id)) ??
    entry?.name ??
    target.slug ??
    (target.runId === null ? undefined : context.childSlugs.get(target.runId)) ??
    'subagent';
  const status: RunStatus | null = entry?.status ?? null;
  const resuming = entry ? isWaitingToResume(entry) : false;
  const lost = entry ? workerLostOf(entry) : null;
  const ticking = status !== null && !isTerminalStatus(status) && !resuming && lost === null;
  const now = useNow(ticking);
  const callState =
    item.result === undefined
      ? awaiting
        ? waitingLabel(item.name)
        : 'running…'
      : item.result.isError
        ? 'refused'
        : 'done';
  const statusText = lost
    ? workerLostText(lost)
    : resuming
      ? 'Waiting to resume'
      : status !== null
        ? presentStatus(status).label
        : callState;
  const tone = status === 'cancelled' ? 'neutral' : status !== null ? presentStatus(status).tone : 'idle';
  const verb = CHILD_CALL_VERBS[item.name] ?? item.name;
  // The stream's latest verdict while the call waits (a revision runs); once it returned, the verdict on the
  // last run that answered (a revision's card, listed with its stored verdict), else the result's footer line.
  const verdict =
    (item.result === undefined
      ? entry?.verdict
      : lastAnswer(context.childByToolCall, item.toolCallId, entry)?.verdict) ??
    verdictFromResultText(item.result?.output) ??
    entry?.verdict ??
    null;
  return (
    <div
      className={`child-call tone-${tone}`}
      role="group"
      aria-label={`${verb} ${name}`}
      data-tool={item.name}
      data-child-run-id={entry?.run_id}
      data-status={status ?? undefined}
    >
      <div className="child-call-line">
        <span className="child-call-arrow" aria-hidden="true">
          {item.name === 'delegate' ? '⇢' : '→'}
        </span>
        <span className="child-call-verb muted small">{verb}</span> <strong>{name}</strong>
        <span className="child-call-state">
          {' · '}
          {statusText}
          {entry ? ` ${formatDuration(entry.started_at ?? entry.created_at, clockEnd(entry), now)}` : ''}
        </span>
        {entry?.child_conversation_id ? (
          <>
            {' · '}
            <button
              type="button"
              className="link-button"
              aria-expanded={open}
              aria-controls={bodyId}
              onClick={() => setOpen(!open)}
            >
              {open ? 'Close' : 'Open'}
              <span className="visually-hidden"> {name} transcript</span>
            </button>
            {' · '}
            <AppLink to={paths.trace(entry.run_id)}>
              Trace<span className="visually-hidden"> of {name}</span>
            </AppLink>
          </>
        ) : null}
      </div>
      {verdict ? <VerdictBadge verdict={verdict} /> : null}
      {open && entry ? (
        <div id={bodyId} className="child-call-body">
          <InlineChildTranscript entry={entry} label={name} />
        </div>
      ) : null}
      <details className="child-call-raw">
        <summary>Call details</summary>
        <h4>Arguments</h4>
        <pre tabIndex={0}>{prettyJson(item.args ?? {})}</pre>
        {item.result !== undefined ? (
          <>
            <h4>{item.result.isError ? 'Error' : 'Result'}</h4>
            <pre tabIndex={0}>{prettyJson(item.result.output)}</pre>
          </>
        ) : null}
      </details>
    </div>
  );
}
