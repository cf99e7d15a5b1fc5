import { z } from 'zod';
import { TOOL_APPROVAL_MODES } from './agent.js';
import { nullableTimestamp, timestamp } from './record-fields.js';
import { refusalSchema } from './refusal.js';
import { usageDetailFields } from './usage-detail-fields.js';

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

export const RUN_TYPES = ['chat', 'subagent', 'delegation', 'resume', 'grader'] as const;
export type RunType = (typeof RUN_TYPES)[number];

export const RUN_CHANNELS = ['web', 'api', 'internal'] as const;
export type RunChannel = (typeof RUN_CHANNELS)[number];

/** Why a run failed or stopped: `type` is the stable code; a refusal's data when one ended it (a budget). */
export const runErrorRecord = z.strictObject({
  type: z.string(),
  message: z.string(),
  refusal: refusalSchema.optional(),
});
export type RunError = z.infer<typeof runErrorRecord>;

const modelUsageRecord = z.strictObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  model_calls: z.number(),
  ...usageDetailFields,
});
export type ModelUsage = z.infer<typeof modelUsageRecord>;

/**
 * A run's usage over all its attempts (docs/usage.md): tokens and `model_calls` of the calls the provider
 * answered; `aborted_model_calls` the calls that never answered (cancelled, failed, lost with their worker),
 * whose tokens nobody reported. `by_model` appears once a model other than the run's `model_spec` answered a
 * call (a fallback): which models ran and what each used, for costs.
 */
export const tokenUsageRecord = z
  .strictObject({
    input_tokens: z.number(),
    output_tokens: z.number(),
    total_tokens: z.number(),
    model_calls: z.number().describe('Calls the provider answered, over every attempt of the run'),
    aborted_model_calls: z
      .number()
      .describe(
        'Calls that never answered (cancelled, failed, lost with their worker); their tokens are unknown',
      ),
    ...usageDetailFields,
    by_model: z
      .record(z.string(), modelUsageRecord)
      .optional()
      .describe('Per model spec, once a fallback model answered a call: which models ran and what each used'),
  })
  .describe('Usage over every attempt of the run; live while it runs');
export type TokenUsage = z.infer<typeof tokenUsageRecord>;

export interface RunInput {
  /** The user (or parent agent) message that started the run. */
  message: string;
  /** Tool-call id in the parent run that created this run (subagent and delegation runs). */
  parent_tool_call_id?: string;
  [key: string]: unknown;
}

/**
 * A run whose worker stopped renewing its lease (a crash, a kill, a lost network): nothing works on it, and
 * a lease reconciler takes it over at its next pass after the lease expired (docs/usage.md). `takeover_by`:
 * the run is taken over by then if a worker process is up.
 */
export const workerLostRecord = z
  .strictObject({
    since: timestamp.describe('When the lease expired'),
    takeover_by: timestamp.describe('When a lease reconciler takes the run over, if a worker process is up'),
    then: z.enum(['resume', 'fail', 'cancel']).describe('What the takeover does'),
  })
  .describe('Set while an expired lease holds the run: no process works on it');
export type WorkerLost = z.infer<typeof workerLostRecord>;

/**
 * Where a fork started (docs/effects-and-forks.md#fork): the run it was forked from and the last step of that
 * run its thread kept (0: only the input).
 */
export const forkOriginRecord = z
  .strictObject({
    run_id: z.string().describe('The source run'),
    step: z.number().int().describe("The source's last step the fork's thread kept (0: its input only)"),
  })
  .describe('Set on the run a fork started: where it was forked from');
export type ForkOrigin = z.infer<typeof forkOriginRecord>;

/**
 * A run as the API shows it: `usage` live while it is active (what its attempts settled so far, docs/usage.md)
 * and `worker_lost` while an expired lease holds it. The stored record, `Run`, is the same without
 * `worker_lost`. `input` is documented field by field by the HTTP schema (`src/http/response-schemas/`).
 */
export const runViewRecord = z.strictObject({
  id: z.string(),
  thread_id: z.string(),
  conversation_id: z.string(),
  agent_id: z.string(),
  user_id: z.string(),
  run_type: z.enum(RUN_TYPES),
  source: z.string(),
  channel: z.enum(RUN_CHANNELS),
  status: z.enum(RUN_STATUSES),
  request_id: z.string(),
  created_by_run_id: z.string().nullable(),
  root_run_id: z.string(),
  depth: z.number().int(),
  subagent_thread_relation_id: z.string().nullable(),
  runtime_scope_id: z.string(),
  tool_approval_mode: z.enum(TOOL_APPROVAL_MODES),
  model_spec: z.string(),
  input: z.custom<RunInput>(),
  output: z.string().nullable(),
  error: runErrorRecord.nullable(),
  usage: tokenUsageRecord.nullable(),
  worker_id: z.string().nullable(),
  lease_expires_at: nullableTimestamp,
  worker_lost: workerLostRecord.nullable(),
  attempt: z.number().int(),
  created_at: timestamp,
  started_at: nullableTimestamp,
  finished_at: nullableTimestamp,
  updated_at: timestamp,
  forked_from: forkOriginRecord.nullable(),
});
export type RunView = z.infer<typeof runViewRecord>;

export const runRecord = runViewRecord.omit({ worker_lost: true });
export type Run = z.infer<typeof runRecord>;

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
 * `scope` is `run` when approved for the rest of the run; questions and rejections are `call`.
 */
export const toolApprovalRecord = z.strictObject({
  run_id: z.string(),
  tool_call_id: z.string(),
  tool_name: z.string(),
  args: z.unknown(),
  status: z.enum(APPROVAL_STATUSES),
  comment: z.string().nullable(),
  decided_by: z.string().nullable(),
  created_at: timestamp,
  decided_at: nullableTimestamp,
  kind: z.enum(HUMAN_INPUT_KINDS),
  answers: z.array(z.string()).nullable(),
  scope: z.enum(APPROVAL_SCOPES).describe('"run" when approved for the rest of the run'),
});
export type ToolApproval = z.infer<typeof toolApprovalRecord>;

export function isTerminalStatus(status: RunStatus): status is TerminalRunStatus {
  return (TERMINAL_RUN_STATUSES as readonly RunStatus[]).includes(status);
}

export function isActiveStatus(status: RunStatus): status is ActiveRunStatus {
  return !isTerminalStatus(status);
}
