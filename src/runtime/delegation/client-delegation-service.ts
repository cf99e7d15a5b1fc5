import type { BudgetLimits } from '../../core/budgets/budget.js';
import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Conversation } from '../../core/records/conversation.js';
import type { Run, RunStatus } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import type { ProjectService } from '../projects/project-service.js';
import type { DelegationRunService } from './delegation-run-service.js';
import { isTerminalStatus } from '../../core/records/run.js';
import type { Evidence } from '../../core/verification/evidence.js';
import { unverified, type Verification } from '../../core/verification/verification.js';
import type { RunLimits } from '../../run-limits.js';
import { readEvidence } from '../verification/read-evidence.js';
import { verifyChildResult, type VerifyDeps } from '../verification/verify-child-result.js';

export interface DelegateRequest {
  /** Slug or id of the target expert. */
  expert: string;
  task: string;
  /** The caller's conversation the delegation is made from: its expert is "self", its project is reused. */
  conversation_id?: string | undefined;
  /** An active run of the caller to delegate from: depth, ancestry and status panel follow it. */
  parent_run_id?: string | undefined;
  /** Narrows the expert's budget; with a parent run, a part of that run's remaining budget (docs/budgets.md). */
  budget?: BudgetLimits | undefined;
  /** Acceptance criteria: the finished run is graded, and revised if asked (docs/verified-delegation.md). */
  acceptance?: string | undefined;
}

/** `POST /api/delegate`: always HTTP 200; a refused or failed delegation is `status: "failed"`. */
export interface DelegateResponse {
  status: RunStatus;
  run_id: string | null;
  conversation_id: string | null;
  thread_id: string | null;
  output: string | null;
  error?: string;
  error_type?: string;
  wait_timed_out?: boolean;
  /** Set once the run ended: what it did, from its records. */
  evidence?: Evidence;
  /** Set once the run ended: the verdict (`unverified` without acceptance criteria). */
  verification?: Verification;
}

export interface ClientDelegationService {
  delegate(actor: Actor, request: DelegateRequest, waitMs: number): Promise<DelegateResponse>;
}

export interface ClientDelegationDeps {
  storage: Storage;
  runs: DelegationRunService;
  projects: Pick<ProjectService, 'defaultProject'>;
  verify: VerifyDeps;
  limits: Pick<RunLimits, 'waitTimeoutMs'>;
}

function response(run: Run, timedOut: boolean): DelegateResponse {
  return {
    status: run.status,
    run_id: run.id,
    conversation_id: run.conversation_id,
    thread_id: run.thread_id,
    output: run.output,
    ...(run.error ? { error: run.error.message, error_type: run.error.type } : {}),
    ...(timedOut ? { wait_timed_out: true } : {}),
  };
}

/**
 * Delegation for API clients (docs/delegation.md). Foreign or unknown ids in the request are the caller's mistake
 * (`run_not_found`, `conversation_not_found`, like everywhere else); the expert checks are business
 * results, answered as `{status: "failed", error}` because the caller is usually a model, not a person.
 */
export function createClientDelegationService(deps: ClientDelegationDeps): ClientDelegationService {
  const { storage } = deps;

  async function ownParent(actor: Actor, runId: string | undefined): Promise<Run | undefined> {
    if (runId === undefined) return undefined;
    const run = await storage.runs.get(runId);
    // The expert runs as the caller, so only the caller's own runs can be its parent, admins included.
    if (run?.user_id !== actor.id) throw new TroupeError('run_not_found', `Run ${runId} not found`);
    return run;
  }

  async function ownConversation(
    actor: Actor,
    conversationId: string | undefined,
  ): Promise<Conversation | undefined> {
    if (conversationId === undefined) return undefined;
    const conversation = await storage.conversations.get(conversationId);
    if (conversation?.user_id !== actor.id) {
      throw new TroupeError('conversation_not_found', `Conversation "${conversationId}" not found`);
    }
    return conversation;
  }

  /** The graded result; revisions continue the expert's thread (docs/verified-delegation.md). */
  async function verifyDelegation(
    actor: Actor,
    request: DelegateRequest,
    parent: Run | undefined,
    run: Run,
    waitMs: number,
  ): Promise<{ run: Run; verification: Verification }> {
    const base = await storage.agents.get(parent?.agent_id ?? run.agent_id);
    if (!base) return { run, verification: unverified(await readEvidence(storage, run)) };
    return verifyChildResult(deps.verify, {
      parent,
      userId: actor.id,
      base,
      toolCallId: parent ? `api:${run.id}` : undefined,
      child: run,
      timeoutMs: Math.min(waitMs, deps.limits.waitTimeoutMs),
      revise: (message, revision) =>
        deps.runs.startWatched(
          {
            actor,
            expert: run.agent_id,
            task: message,
            ...(parent ? { parent, toolCallId: `api:${run.id}:revision:${revision}` } : {}),
            channel: 'api',
            acceptance: request.acceptance,
            revises: { run, task: request.task },
            awaited: true,
          },
          async (started, since) => {
            if (started.kind === 'refused') return started.error;
            return (await deps.runs.awaitRun(started.run.id, waitMs, undefined, since)).run;
          },
        ),
    });
  }

  return {
    async delegate(actor, request, waitMs) {
      const parent = await ownParent(actor, request.parent_run_id);
      const origin = await ownConversation(actor, request.conversation_id);
      if (parent && origin && parent.conversation_id !== origin.id) {
        throw new TroupeError(
          'validation_failed',
          'conversation_id is not the conversation of parent_run_id',
        );
      }
      return deps.runs.startWatched(
        {
          actor,
          expert: request.expert,
          task: request.task,
          ...(parent ? { parent } : {}),
          ...(origin ? { origin } : {}),
          project: async () => (await deps.projects.defaultProject(actor)).id,
          channel: 'api',
          budget: request.budget,
          acceptance: request.acceptance,
        },
        async (started, since) => {
          if (started.kind === 'refused') {
            return {
              status: 'failed',
              run_id: null,
              conversation_id: null,
              thread_id: null,
              output: null,
              error: started.error,
            };
          }
          const { run, wait_timed_out } = await deps.runs.awaitRun(started.run.id, waitMs, undefined, since);
          if (wait_timed_out || !isTerminalStatus(run.status)) return response(run, wait_timed_out);
          const verified = await verifyDelegation(actor, request, parent, run, waitMs);
          return {
            ...response(verified.run, false),
            evidence: verified.verification.evidence,
            verification: verified.verification,
          };
        },
      );
    },
  };
}
