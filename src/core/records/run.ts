import type { ToolApprovalMode } from './agent.js';
import type { Refusal } from './refusal.js';

export const RUN_STATUSES = [
  'pending',
  'running',
  'input_required',
  'cancel_requested',
  'completed',
  'failed',
  'cancelled',
  'interrupted',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const TERMINAL_RUN_STATUSES = ['completed', 'failed', 'cancelled', 'interrupted'] as const;
export type TerminalRunStatus = (typeof TERMINAL_RUN_STATUSES)[number];

/** Statuses that hold a thread: the database allows one run per thread in these. */
export const ACTIVE_RUN_STATUSES = ['pending', 'running', 'input_required', 'cancel_requested'] as const;
export type ActiveRunStatus = (typeof ACTIVE_RUN_STATUSES)[number];

export const RUN_TYPES = ['chat', 'subagent', 'delegation', 'resume'] as const;
export type RunType = (typeof RUN_TYPES)[number];

export const RUN_CHANNELS = ['web', 'api', 'internal'] as const;
export type RunChannel = (typeof RUN_CHANNELS)[number];

export interface RunError {
  type: string;
  message: string;
  /** The refusal's data when one ended the run (a budget): `message` says the same in words. */
  refusal?: Refusal;
}

/**
 * A run's usage over all its attempts (docs/usage.md): tokens and `model_calls` of the calls the provider
 * answered; `aborted_model_calls` the calls that never answered (cancelled, failed, lost with their worker),
 * whose tokens nobody reported.
 */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  model_calls: number;
  aborted_model_calls: number;
  /**
   * Per model spec, once a model other than the run's `model_spec` answered a call (a fallback): which
   * models ran and what each used, for costs. Absent while the run's own model answered every call.
   */
  by_model?: Record<string, ModelUsage>;
}

export interface ModelUsage {
  input_tokens: number;
  output_tokens: number;
  model_calls: number;
}

export interface RunInput {
  /** The user (or parent agent) message that started the run. */
  message: string;
  /** Tool-call id in the parent run that created this run (subagent and delegation runs). */
  parent_tool_call_id?: string;
  [key: string]: unknown;
}

export interface Run {
  id: string;
  thread_id: string;
  conversation_id: string;
  agent_id: string;
  user_id: string;
  run_type: RunType;
  source: string;
  channel: RunChannel;
  status: RunStatus;
  request_id: string;
  created_by_run_id: string | null;
  root_run_id: string;
  depth: number;
  subagent_thread_relation_id: string | null;
  runtime_scope_id: string;
  tool_approval_mode: ToolApprovalMode;
  model_spec: string;
  input: RunInput;
  output: string | null;
  error: RunError | null;
  usage: TokenUsage | null;
  worker_id: string | null;
  lease_expires_at: string | null;
  attempt: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

/**
 * A run whose worker stopped renewing its lease (a crash, a kill, a lost network): nothing works on it, and
 * a lease reconciler takes it over at its next pass after the lease expired (docs/usage.md).
 */
export interface WorkerLost {
  /** When the lease expired. */
  since: string;
  /** When a reconciler's next pass is due: the run is taken over by then if a worker process is up. */
  takeover_by: string;
  /** What the takeover does: resume it from its last checkpoint, fail it, or finish its cancel. */
  then: 'resume' | 'fail' | 'cancel';
}

/**
 * A run as the API shows it: `usage` live while it is active (what its attempts settled so far, docs/usage.md)
 * and `worker_lost` while an expired lease holds it.
 */
export interface RunView extends Run {
  worker_lost: WorkerLost | null;
}

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'answered'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** `approval`: a sensitive tool call waiting for approve/reject; `question`: `ask_user_question` waiting for answers. */
export const HUMAN_INPUT_KINDS = ['approval', 'question'] as const;
export type HumanInputKind = (typeof HUMAN_INPUT_KINDS)[number];

/**
 * What an approval covers: its one tool call, or (`run`) every later call of the same tool in the same run
 * (not its children: a subagent or delegated run is another run and asks, or is filtered, on its own).
 */
export const APPROVAL_SCOPES = ['call', 'run'] as const;
export type ApprovalScope = (typeof APPROVAL_SCOPES)[number];

/**
 * A tool call of a main agent waiting for (or past) a human: a decision on a sensitive call, or the answers
 * to `ask_user_question` (status `answered`, `answers` one per question). Both park the run the same way.
 */
export interface ToolApproval {
  run_id: string;
  tool_call_id: string;
  tool_name: string;
  args: unknown;
  status: ApprovalStatus;
  comment: string | null;
  decided_by: string | null;
  created_at: string;
  decided_at: string | null;
  kind: HumanInputKind;
  answers: string[] | null;
  /** `run` when approved for the rest of the run; questions and rejections are `call`. */
  scope: ApprovalScope;
}

export function isTerminalStatus(status: RunStatus): status is TerminalRunStatus {
  return (TERMINAL_RUN_STATUSES as readonly RunStatus[]).includes(status);
}

export function isActiveStatus(status: RunStatus): status is ActiveRunStatus {
  return !isTerminalStatus(status);
}
