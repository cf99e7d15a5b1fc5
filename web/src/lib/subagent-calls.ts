import type { ChatTurn } from './transcript-items.ts';

/** Tool calls that start or steer a child run: shown as a link to that child, not as raw JSON. */
export const CHILD_CALL_TOOLS = new Set([
  'task',
  'delegate',
  'subagent_start',
  'subagent_status',
  'subagent_cancel',
  'subagent_steer',
]);

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Tool output may arrive as JSON text (a stored `text` result) or as the object itself. */
export function parseToolOutput(output: unknown): unknown {
  if (typeof output !== 'string') return output;
  const trimmed = output.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return output;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return output;
  }
}

/** Which child a call is about, and the name to show before the child's card is known. */
export function childCallTarget(
  name: string,
  args: unknown,
  output: unknown,
): { runId: string | null; slug: string | null } {
  const input = record(args) ?? {};
  const result = record(parseToolOutput(output)) ?? {};
  return {
    runId: str(input.run_id) ?? str(result.run_id),
    slug:
      str(input.subagent_slug) ??
      str(input.expert) ??
      str(result.subagent_slug) ??
      (name === 'delegate' ? 'expert' : null),
  };
}

export const CHILD_CALL_VERBS: Record<string, string> = {
  task: 'Task for',
  delegate: 'Delegated to',
  subagent_start: 'Started',
  subagent_status: 'Checked on',
  subagent_cancel: 'Cancelled',
  subagent_steer: 'Steered',
};

/** One child in a `subagent_await` result. */
export interface AwaitedChild {
  run_id: string;
  /** A run status, or whatever the tool said when it is not one. */
  status: string;
  output: string;
  error: string | null;
  tokens: number | null;
  timedOut: boolean;
}

export interface AwaitSummary {
  mode: 'one' | 'all' | 'any';
  timedOut: boolean;
  children: AwaitedChild[];
}

function awaitedChild(value: unknown): AwaitedChild | null {
  const item = record(value);
  const runId = str(item?.run_id);
  if (!item || runId === null) return null;
  const result = record(item.result) ?? {};
  const error = record(result.error);
  const usage = record(result.usage);
  const status = str(item.status) ?? str(result.status) ?? 'unknown';
  return {
    run_id: runId,
    status,
    output: str(result.output) ?? '',
    error: error ? (str(error.message) ?? str(error.type)) : null,
    tokens: typeof usage?.total_tokens === 'number' ? usage.total_tokens : null,
    timedOut: item.wait_timed_out === true,
  };
}

/** The result of `subagent_await` (one run, or `runs` with mode all/any); undefined when it is something else. */
export function summariseAwait(output: unknown): AwaitSummary | undefined {
  const parsed = record(parseToolOutput(output));
  if (!parsed) return undefined;
  if (Array.isArray(parsed.runs)) {
    const children = parsed.runs.map(awaitedChild).filter((child): child is AwaitedChild => child !== null);
    return {
      mode: parsed.mode === 'any' ? 'any' : 'all',
      timedOut: parsed.wait_timed_out === true,
      children,
    };
  }
  const one = awaitedChild(parsed);
  return one ? { mode: 'one', timedOut: one.timedOut, children: [one] } : undefined;
}

/**
 * The name each child run was started under (`subagent_slug`, or the expert of a `delegate`), by run id,
 * from the calls of the transcript that started them: what names a child the status panel does not know.
 */
export function childSlugsFromCalls(turns: readonly ChatTurn[]): Map<string, string> {
  const slugs = new Map<string, string>();
  for (const turn of turns) {
    for (const item of turn.items) {
      if (item.kind !== 'tool' || !CHILD_CALL_TOOLS.has(item.name)) continue;
      const target = childCallTarget(item.name, item.args, item.result?.output);
      if (target.runId !== null && target.slug !== null && !slugs.has(target.runId))
        slugs.set(target.runId, target.slug);
    }
  }
  return slugs;
}
