import type { BudgetLimits } from '../../core/budgets/budget.js';
import type { Conversation } from '../../core/records/conversation.js';
import type { RunEventStream } from '../events/stream-run-events.js';
import type { Actor } from '../../core/records/user.js';
import type {
  ApprovalScope,
  Run,
  RunChannel,
  RunError,
  RunView,
  TokenUsage,
  ToolApproval,
} from '../../core/records/run.js';
import type { ChildRunEntry } from './children/list-child-runs.js';
import type { RunQuestion } from './human-input/run-questions.js';
import type { InspectedStep } from './inspect/inspect-run-step.js';

export interface PostMessageInput {
  content: string;
  /** Client idempotency key; a replay returns the existing run with status `existing`. */
  request_id?: string;
  channel?: RunChannel;
  /** Ids of files uploaded to this conversation; the message tells the model their workdir paths. */
  attachments?: string[];
  /** Narrows the agent's `config.budget` for this run tree (docs/budgets.md); above it is refused. */
  budget?: BudgetLimits;
  /** W3C trace context the run's spans continue (a task delegated by another Troupe server). */
  traceparent?: string;
  /** Who asked, as another Troupe server vouched for it (a verified caller claim). */
  caller?: { issuer: string; subject: string; name: string };
}

export interface StartedRun {
  status: 'started' | 'existing';
  run: RunView;
}

/** `GET /api/agent/runs/{id}/result`: reads, never re-runs. */
export interface RunResult {
  status: Run['status'];
  run_id: string;
  thread_id: string;
  conversation_id: string;
  agent_id: string;
  request_id: string;
  output: string;
  usage: TokenUsage | null;
  error?: RunError;
}

export interface AwaitedRun {
  run: RunView;
  wait_timed_out: boolean;
}

/** What a wait inside the runtime gets: the run's record (`AwaitedRun` is the API's view of it). */
export interface AwaitedRunRecord {
  run: Run;
  wait_timed_out: boolean;
}

export interface ApprovalDecision {
  decision: 'approve' | 'reject';
  comment?: string;
  /** `run`: approve this tool for the rest of the run (its pending calls too); only with `approve`. */
  scope?: ApprovalScope;
}

/** What the HTTP layer and the CLI ask of runs; every call is scoped to the acting user. */
export interface RunServiceApi {
  postMessage(actor: Actor, conversationId: string, input: PostMessageInput): Promise<StartedRun>;
  getRun(actor: Actor, runId: string): Promise<RunView>;
  getResult(actor: Actor, runId: string): Promise<RunResult>;
  cancel(actor: Actor, runId: string): Promise<RunView>;
  await(actor: Actor, runId: string, timeoutMs: number): Promise<AwaitedRun>;
  listRunsOfConversation(actor: Actor, conversationId: string): Promise<RunView[]>;
  /** The subagent and delegation runs started from a conversation: the console's status panel. */
  listChildRuns(actor: Actor, conversationId: string): Promise<ChildRunEntry[]>;
  listApprovals(actor: Actor, runId: string): Promise<ToolApproval[]>;
  /** Decides a pending approval; when none is left pending the parked run is resumed. */
  decideApproval(
    actor: Actor,
    runId: string,
    toolCallId: string,
    decision: ApprovalDecision,
  ): Promise<{ approval: ToolApproval; run: RunView }>;
  /** One model call of a run: its prompt (messages exact, the rest rebuilt), completion, usage, tool calls. */
  inspectStep(actor: Actor, runId: string, step: number): Promise<InspectedStep>;
  /** The `ask_user_question` calls of a run, pending and answered. */
  listQuestions(actor: Actor, runId: string): Promise<RunQuestion[]>;
  /** Answers a pending question (one answer per question); when nothing else is pending the run resumes. */
  answerQuestion(
    actor: Actor,
    runId: string,
    toolCallId: string,
    answers: string[],
  ): Promise<{ question: RunQuestion; run: RunView }>;
  /**
   * Events after `afterSeq`, then live ones, in order without gaps or duplicates; ends after `end`
   * or when `signal` aborts. Throws `run_not_found` up front for a run the actor cannot see. `ended` is
   * true when `afterSeq` is at or past the run's `end` (nothing will be yielded).
   */
  streamEvents(actor: Actor, runId: string, afterSeq: number, signal: AbortSignal): Promise<RunEventStream>;
}

export type { Conversation };
