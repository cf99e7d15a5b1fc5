import type { ContentPart, InspectedStep, ThreadMessage, TimelineSpan, TraceNode } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { useSession } from '../../hooks/use-session.ts';
import { formatMs, workerLostText } from '../../lib/run-phase.ts';
import { oneLine, prettyJson, truncateEnd } from '../../lib/text.ts';
import { spanEnd, stepOfSpan } from '../../lib/trace-model.ts';
import { visibleSpans } from '../../../../src/core/trace/run-timeline.ts';
import { ErrorMessage } from '../common/error-message.tsx';

const STATUS_TEXT: Record<TimelineSpan['status'], string> = {
  running: 'in progress',
  done: 'done',
  error: 'failed',
  awaiting_approval: 'waiting for a human',
  cancelled: 'cancelled: it never answered',
  interrupted: 'interrupted: its worker stopped before it answered',
};

function partText(part: ContentPart): string {
  if (part.type === 'text' || part.type === 'reasoning') return String((part as { text: string }).text);
  if (part.type === 'tool-call') {
    const call = part as { toolName: string; input: unknown };
    return `→ ${call.toolName}(${prettyJson(call.input)})`;
  }
  if (part.type === 'tool-result') {
    const result = part as { toolName: string; output: { value?: unknown } };
    return `← ${result.toolName}: ${prettyJson(result.output.value)}`;
  }
  return prettyJson(part);
}

function messageText(entry: ThreadMessage): string {
  const { content } = entry.message;
  return typeof content === 'string' ? content : content.map(partText).join('\n');
}

/** One message of a prompt, folded to a line until opened. */
function PromptMessage({ entry }: { entry: ThreadMessage }) {
  const text = messageText(entry);
  return (
    <details className="prompt-message" data-role={entry.message.role}>
      <summary>
        <span className={`pill role-${entry.message.role}`}>{entry.message.role}</span>{' '}
        <span className="muted">{truncateEnd(oneLine(text), 110) || '(empty)'}</span>
      </summary>
      <pre tabIndex={0}>{text}</pre>
    </details>
  );
}

function Usage({ usage }: { usage: InspectedStep['usage'] | TimelineSpan['usage'] }) {
  if (!usage) return <>not reported</>;
  const cached = (usage as { cached_input_tokens?: number }).cached_input_tokens;
  return (
    <>
      {usage.input_tokens} in / {usage.output_tokens} out
      {typeof cached === 'number' ? ` (${cached} of the input cached)` : ''}
    </>
  );
}

/**
 * One span of the trace, opened: a model call's prompt (its messages folded, the system prompt and tools as
 * the agent has them now), completion, error, latency and tokens, or a tool call's arguments, result, error
 * and latency (docs/usage.md, "Inspecting a call").
 */
export function SpanInspector({
  node,
  span,
  now,
  onClose,
}: {
  node: TraceNode;
  span: TimelineSpan;
  now: number;
  onClose: () => void;
}) {
  const { api } = useSession();
  const spans = visibleSpans(node.timeline);
  const step = stepOfSpan(spans, span);
  const inspected = useAsync((signal) => api.runStep(node.run.id, step, signal), [api, node.run.id, step]);
  const latency = spanEnd(node, span, now) - Date.parse(span.started_at);
  const data = inspected.data;
  const answered = span.kind === 'model' && span.status === 'done';
  const call =
    span.kind === 'tool'
      ? data?.tool_calls.find((entry) => entry.tool_call_id === span.tool_call_id)
      : undefined;
  const lost = node.run.worker_lost;
  const failed = span.status === 'error' || span.status === 'cancelled' || span.status === 'interrupted';
  const title = span.kind === 'model' ? `Model call · step ${step}` : `Tool call ${span.name}`;
  return (
    <section
      className="span-inspector"
      aria-label={title}
      data-span-kind={span.kind}
      data-span-status={span.status}
    >
      <header>
        <h3>{title}</h3>
        <button type="button" className="small" onClick={onClose}>
          Close
        </button>
      </header>
      <dl className="meta">
        <dt>Status</dt>
        <dd>{span.status === 'running' && lost ? workerLostText(lost, now) : STATUS_TEXT[span.status]}</dd>
        <dt>Latency</dt>
        <dd>
          {formatMs(latency)}
          {span.ended_at === null ? ' so far' : ''}
        </dd>
        {span.kind === 'model' ? (
          <>
            <dt>Model</dt>
            <dd>{span.name}</dd>
            <dt>Tokens</dt>
            <dd data-inspected="tokens">
              {answered ? (
                <Usage usage={data?.usage ?? span.usage} />
              ) : span.status === 'running' && !lost ? (
                'none yet: the call has not answered'
              ) : (
                'none reported: it never answered'
              )}
            </dd>
          </>
        ) : null}
      </dl>
      <ErrorMessage error={inspected.error} context="Could not load this call" />
      {!data && !inspected.error ? <p role="status">Loading…</p> : null}
      {data && span.kind === 'model' ? (
        <>
          <h4>Prompt ({data.prompt.messages.length} messages)</h4>
          <div className="prompt-messages">
            {data.prompt.messages.map((entry) => (
              <PromptMessage key={entry.seq} entry={entry} />
            ))}
          </div>
          <details className="prompt-message">
            <summary>System prompt and tools, as the agent has them now</summary>
            <p className="muted small">
              {data.prompt.note}
              {data.prompt.agent_changed_since ? ' The agent was changed after this call.' : ''}
            </p>
            <pre tabIndex={0}>{data.prompt.system_prompt ?? '(none)'}</pre>
            <p className="small">
              Tools:{' '}
              {data.prompt.tools.length > 0
                ? data.prompt.tools.map((tool) => <code key={tool}>{tool} </code>)
                : 'none'}
            </p>
          </details>
          <h4>Completion</h4>
          {answered && data.completion ? (
            <pre tabIndex={0} data-inspected="completion">
              {messageText(data.completion)}
            </pre>
          ) : (
            <p className="muted" data-inspected="completion">
              {span.status === 'running'
                ? 'The model has not answered yet.'
                : data.partial && data.completion
                  ? `It never answered; the text it had streamed was kept: “${truncateEnd(oneLine(messageText(data.completion)), 200)}”`
                  : 'It never answered.'}
            </p>
          )}
          {data.tool_calls.length > 0 ? (
            <>
              <h4>Tool calls ({data.tool_calls.length})</h4>
              <div className="prompt-messages" data-inspected="tool-calls">
                {data.tool_calls.map((entry) => (
                  <details key={entry.tool_call_id} className="prompt-message">
                    <summary>
                      <code>{entry.name}</code>{' '}
                      <span className="muted">
                        {entry.result === null ? 'no result yet' : entry.result.is_error ? 'error' : 'done'}
                      </span>
                    </summary>
                    <pre tabIndex={0}>{prettyJson(entry.args)}</pre>
                    {entry.result ? (
                      <pre tabIndex={0} className={entry.result.is_error ? 'result-error' : undefined}>
                        {prettyJson(entry.result.output)}
                      </pre>
                    ) : null}
                  </details>
                ))}
              </div>
            </>
          ) : null}
        </>
      ) : null}
      {data && span.kind === 'tool' ? (
        <>
          <h4>Arguments</h4>
          <pre tabIndex={0} data-inspected="arguments">
            {prettyJson(call?.args ?? {})}
          </pre>
          <h4>{call?.result?.is_error ? 'Error' : 'Result'}</h4>
          {call?.result ? (
            <pre
              tabIndex={0}
              data-inspected="result"
              className={call.result.is_error ? 'result-error' : undefined}
            >
              {prettyJson(call.result.output)}
            </pre>
          ) : (
            <p className="muted" data-inspected="result">
              {span.status === 'awaiting_approval' ? 'Waiting for a human.' : 'No result yet.'}
            </p>
          )}
        </>
      ) : null}
      {failed && node.run.error && span.id === spans.at(-1)?.id ? (
        <p className="result result-error" role="note">
          <code className="error-code">{node.run.error.type}</code> {node.run.error.message}
        </p>
      ) : null}
    </section>
  );
}
