import type { RunStatus, RunView, TokenUsage } from '../../core/records/run.js';
import type { ApiTokenUsage, ApiTurn, ApiTurnStatus } from './agents-api-objects.js';

/** Unix seconds, as every Agents API timestamp is. */
export function seconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

export function nullableSeconds(iso: string | null): number | null {
  return iso === null ? null : seconds(iso);
}

/** Troupe's usage (docs/usage.md) in the SDK's shape; cached and reasoning tokens are not counted apart. */
export function apiUsage(usage: TokenUsage | null): ApiTokenUsage | null {
  if (usage === null) return null;
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total_tokens,
  };
}

/** The sum of several turns' usage; null when none of them has any. */
export function sumUsage(usages: readonly (ApiTokenUsage | null)[]): ApiTokenUsage | null {
  const present = usages.filter((usage): usage is ApiTokenUsage => usage !== null);
  if (present.length === 0) return null;
  const total = (pick: (usage: ApiTokenUsage) => number) => present.reduce((sum, u) => sum + pick(u), 0);
  return {
    input_tokens: total((u) => u.input_tokens),
    input_tokens_details: { cached_tokens: total((u) => u.input_tokens_details.cached_tokens) },
    output_tokens: total((u) => u.output_tokens),
    output_tokens_details: { reasoning_tokens: total((u) => u.output_tokens_details.reasoning_tokens) },
    total_tokens: total((u) => u.total_tokens),
  };
}

const TURN_STATUS: Record<RunStatus, ApiTurnStatus> = {
  pending: 'queued',
  running: 'in_progress',
  input_required: 'waiting',
  // Still running until the worker stops it.
  cancel_requested: 'in_progress',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  // A run nobody may resume any more: it failed, as far as a client can tell.
  interrupted: 'failed',
};

export function turnStatus(status: RunStatus): ApiTurnStatus {
  return TURN_STATUS[status];
}

/** Troupe's error types that have an equivalent among the SDK's turn error codes; the rest are `internal_error`. */
const ERROR_CODES: Readonly<Record<string, string>> = {
  budget_exhausted: 'usage_limit_exceeded',
  rate_limited: 'rate_limit_exceeded',
  model_call_failed: 'server_error',
  context_overflow: 'context_length_exceeded',
  context_length_exceeded: 'context_length_exceeded',
  inactivity_timeout: 'request_timeout',
};

/** A run's error: the SDK's closed code set, and Troupe's own type at the head of the message. */
export function turnError(run: Pick<RunView, 'status' | 'error'>): ApiTurn['error'] {
  if (run.error === null) {
    return run.status === 'interrupted'
      ? { code: 'internal_error', message: 'The run was interrupted' }
      : null;
  }
  if (run.status === 'cancelled') return null;
  return {
    code: ERROR_CODES[run.error.type] ?? 'internal_error',
    message: `${run.error.type}: ${run.error.message}`,
  };
}

/**
 * A run as a turn: the session's turns are the runs of its conversation (`subagent_id` null); a subagent's
 * turns are the runs of its child conversation (`subagent_id` = that conversation's id, `session_id` still
 * the parent session).
 */
export function runToTurn(run: RunView, sessionId: string, subagentId: string | null): ApiTurn {
  return {
    id: run.id,
    object: 'agent.session.turn',
    agent_id: run.agent_id,
    session_id: sessionId,
    subagent_id: subagentId,
    status: turnStatus(run.status),
    created_at: seconds(run.created_at),
    started_at: nullableSeconds(run.started_at),
    completed_at: nullableSeconds(run.finished_at),
    error: turnError(run),
    usage: apiUsage(run.usage),
  };
}
