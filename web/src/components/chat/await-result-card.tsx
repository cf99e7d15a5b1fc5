import { summariseAwait } from '../../lib/subagent-calls.ts';
import { oneLine, prettyJson, truncateEndAtWord } from '../../lib/text.ts';
import type { ToolItem } from '../../lib/transcript-items.ts';
import { StatusBadge } from '../common/status-badge.tsx';
import { useTranscriptContext } from './transcript-context.ts';

/** `subagent_await`: one line per awaited child — who, how it ended, what it said — instead of raw JSON. */
export function AwaitResultCard({ item }: { item: ToolItem }) {
  const context = useTranscriptContext();
  const summary = item.result === undefined ? undefined : summariseAwait(item.result.output);
  const count =
    summary?.children.length ??
    (Array.isArray((item.args as { run_ids?: unknown })?.run_ids)
      ? (item.args as { run_ids: unknown[] }).run_ids.length
      : 1);
  const heading =
    item.result === undefined
      ? `Waiting for ${count} subagent${count === 1 ? '' : 's'}…`
      : `Waited for ${count} subagent${count === 1 ? '' : 's'}${summary?.mode === 'any' ? ' (first to finish)' : ''}${summary?.timedOut ? ', timed out' : ''}`;
  return (
    <div className="await-card" role="group" aria-label="Awaited subagents" data-tool={item.name}>
      <p className="await-heading">
        <span aria-hidden="true">⋯</span> {heading}
      </p>
      {summary ? (
        <ul className="await-children">
          {summary.children.map((child) => {
            const entry = context.childByRunId.get(child.run_id);
            const name =
              context.childLabels.get(child.run_id) ??
              entry?.name ??
              entry?.slug ??
              context.childSlugs.get(child.run_id) ??
              'subagent';
            const text = child.error ?? child.output;
            return (
              <li key={child.run_id} data-run-id={child.run_id} data-status={child.status}>
                <strong>{name}</strong> <StatusBadge status={child.status} />
                {child.tokens !== null ? <span className="muted small"> {child.tokens} tokens</span> : null}
                {text ? (
                  <span className={child.status === 'cancelled' ? 'muted' : child.error ? 'await-error' : ''}>
                    {' — '}
                    {truncateEndAtWord(oneLine(text), 160)}
                  </span>
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
      {item.result !== undefined ? (
        <details className="child-call-raw">
          <summary>Raw result</summary>
          <pre tabIndex={0}>{prettyJson(item.result.output)}</pre>
        </details>
      ) : null}
    </div>
  );
}
