import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import { isTerminalStatus } from '../../core/records/run.js';
import { newId } from '../../core/ids.js';
import type { Evidence } from '../../core/verification/evidence.js';
import { graderAgent } from '../../core/verification/grader-agent.js';
import { GRADER_TEXTS } from '../../core/verification/grader-texts.js';
import { parseGraderAnswer, type GraderAnswer } from '../../core/verification/verification.js';
import { refused } from '../runs/start/child-run-refusal.js';
import type { ChildHome, ChildRunDeps, ChildRunScope } from '../runs/start/child-run-spec.js';
import { newConversationHome } from '../runs/start/new-conversation-home.js';
import { startChildRun } from '../runs/start/start-child-run.js';
import { startWatched } from '../runs/start/start-watched.js';
import { awaitTerminal } from '../runs/wait/await-terminal.js';

/** What one grading needs: the child's task, criteria, final run and evidence, and who asked. */
export interface GradeRequest {
  /** The run that receives the child's result; none for a top-level `POST /api/delegate`. */
  parent: Run | undefined;
  userId: string;
  /** The agent whose `config.grader` applies: the parent's (or, at the top, the expert's). */
  base: Agent;
  /** The parent's call the grading belongs to: with the child and the try, it names the grader's request id. */
  toolCallId: string | undefined;
  child: Run;
  task: string;
  acceptance: string;
  evidence: Evidence;
  /** Bounds the wait for the grader (the parent's wait timeout). */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** A grader's outcome: its answer, or why there is none (the reason of a `failed` verdict). */
export type Graded =
  | { kind: 'answered'; answer: GraderAnswer; graderRunIds: string[] }
  | { kind: 'no_verdict'; reason: string; graderRunIds: string[] };

/**
 * Grader runs (docs/verified-delegation.md#the-grader): child runs of kind `grader` of the parent, started by the
 * shared child-run start, in a conversation of their own (status `grader`, never a chat) in the child's project,
 * with a fresh context: one message holding the task, the criteria, the child's output and its evidence. A
 * malformed answer gets one more grader run; a second one is `failed`.
 */
export function createGraderRunService(deps: ChildRunDeps) {
  const { storage, bus } = deps;

  async function home(
    { tx, threadId }: ChildRunScope,
    child: Run,
    agent: Agent,
  ): Promise<ChildHome | ReturnType<typeof refused>> {
    const childConversation = await tx.conversations.get(child.conversation_id);
    if (!childConversation) return refused('The graded run has no conversation');
    return newConversationHome(tx, {
      user_id: child.user_id,
      agent_id: agent.id,
      thread_id: threadId,
      project_id: childConversation.project_id,
      status: 'grader',
      title: `Grader: ${typeof child.input.agent_name === 'string' ? child.input.agent_name : child.id}`,
      metadata: { source: 'grader', graded_run_id: child.id, created_by_run_id: child.created_by_run_id },
    });
  }

  /** One grader run to its end: the run, or the refusal text when it could not start. */
  function runOnce(request: GradeRequest, message: string, attempt: number): Promise<Run | string> {
    const agent = graderAgent(request.base);
    return startWatched(
      bus,
      (runId) =>
        startChildRun(deps, {
          kind: 'grader',
          userId: request.userId,
          parentRunId: request.parent?.id,
          toolCallId: request.toolCallId,
          limitsAgentId: request.base.id,
          channel: 'internal',
          message,
          threadId: () => newId('thr'),
          requestScope: () => `grader:${request.child.id}:${attempt}`,
          agent: () => Promise.resolve(agent),
          home: (scope) => home(scope, request.child, agent),
          input: () => ({ graded_run_id: request.child.id, grader_attempt: attempt }),
          runId,
          awaited: true,
        }),
      async (started, since) => {
        if (started.kind === 'refused') return started.error;
        if (started.kind === 'busy') return GRADER_TEXTS.graderRefused('busy');
        const { run } = await awaitTerminal(storage, bus, started.run.id, request.timeoutMs, request.signal, {
          since,
        });
        return run;
      },
    );
  }

  return {
    async grade(request: GradeRequest): Promise<Graded> {
      const ids: string[] = [];
      const first = GRADER_TEXTS.input(
        request.task,
        request.acceptance,
        request.child.output?.trim() ?? '',
        request.evidence,
      );
      for (const [attempt, message] of [first, `${first}\n\n${GRADER_TEXTS.retry}`].entries()) {
        const run = await runOnce(request, message, attempt);
        if (typeof run === 'string')
          return { kind: 'no_verdict', reason: GRADER_TEXTS.graderRefused(run), graderRunIds: ids };
        ids.push(run.id);
        if (!isTerminalStatus(run.status))
          return {
            kind: 'no_verdict',
            reason: GRADER_TEXTS.graderEnded(run.status, 'no verdict in time'),
            graderRunIds: ids,
          };
        if (run.status !== 'completed')
          return {
            kind: 'no_verdict',
            reason: GRADER_TEXTS.graderEnded(run.status, run.error?.message ?? 'no error message'),
            graderRunIds: ids,
          };
        const answer = parseGraderAnswer(run.output);
        if (answer) return { kind: 'answered', answer, graderRunIds: ids };
      }
      return { kind: 'no_verdict', reason: GRADER_TEXTS.malformed, graderRunIds: ids };
    },
  };
}

export type GraderRunService = ReturnType<typeof createGraderRunService>;
