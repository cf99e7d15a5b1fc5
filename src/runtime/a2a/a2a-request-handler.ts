import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import {
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { Run } from '../../core/records/run.js';
import { isTerminalStatus } from '../../core/records/run.js';
import type { Evidence } from '../../core/verification/evidence.js';
import { readEvidence } from '../verification/read-evidence.js';
import { delegatedRunInput } from './a2a-delegation.js';
import { toA2AError } from './a2a-errors.js';
import { readHumanInputReply } from './a2a-human-input.js';
import { readUserText } from './a2a-parts.js';
import { createA2ATaskAccess, type A2ADependencies, type A2AScope } from './a2a-task-access.js';
import { translateRunEvents } from './a2a-task-events.js';
import { pageTasks } from './a2a-task-list.js';
import { toTaskState } from './a2a-task-state.js';
import { A2A_REQUEST_ID_PREFIX, runToTask } from './run-to-a2a-task.js';

export type { A2ADependencies } from './a2a-task-access.js';

/** How long `CancelTask` waits for a running task's worker to stop, so the answer is usually `canceled`. */
const CANCEL_WAIT_MS = 10_000;

export interface A2ARequestScope extends A2AScope {
  /** This endpoint's card (the 0.3 transport reads its capabilities). */
  card: AgentCard;
  /** The HTTP request's lifetime: blocking waits and streams end with it (the task does not). */
  signal: AbortSignal;
  /** The authenticated extended card (`GetExtendedAgentCard`); undefined where the card has none. */
  extendedCard: (() => Promise<AgentCard>) | undefined;
}

/** A task a message started or answered, and where its stream picks up (events after `afterSeq`). */
interface Touched {
  run: Run;
  afterSeq: number;
}

/**
 * The A2A operations over Troupe's services (docs/interoperability.md), for one request: a task is a run started as the
 * caller, its contextId the conversation. The SDK's JSON-RPC transports parse, dispatch and serialize.
 */
export function createA2ARequestHandler(deps: A2ADependencies, scope: A2ARequestScope): A2ARequestHandler {
  const { storage, conversations, runs } = deps;
  const { actor, signal } = scope;
  const access = createA2ATaskAccess(deps, scope);

  /** An ended run's evidence, published with its task (docs/verified-delegation.md#remote-experts). */
  const evidenceOf = (run: Run): Promise<Evidence | undefined> =>
    isTerminalStatus(run.status) ? readEvidence(storage, run) : Promise.resolve(undefined);

  async function snapshot(runId: string, historyLength?: number): Promise<Task> {
    const run = await runs.getRun(actor, runId);
    const [pending, evidence] = await Promise.all([access.pending(run), evidenceOf(run)]);
    return runToTask(run, pending, { historyLength, evidence });
  }

  /** A replayed message id answers with the task it started instead of starting a second one. */
  async function replayed(requestId: string, expertId: string, contextId: string): Promise<Run | undefined> {
    const prior = await storage.runs.getByRequestId(actor.id, requestId);
    if (prior === undefined) return undefined;
    if (
      prior.agent_id !== expertId ||
      prior.created_by_run_id !== null ||
      (contextId !== '' && contextId !== prior.conversation_id)
    ) {
      throw new RequestMalformedError('messageId was already used for another message; send a new messageId');
    }
    return prior;
  }

  /**
   * A message to an `input-required` task answers it (README "A2A"): its data part decides the approval,
   * its text or data parts answer the question, and the task goes on from where the client last saw it.
   */
  async function answer(message: Message, taskId: string): Promise<Touched> {
    const task = await access.loadTask(taskId);
    if (message.contextId !== '' && message.contextId !== task.conversation_id)
      throw new RequestMalformedError('message.contextId does not match the task');
    if (isTerminalStatus(task.status)) {
      throw new UnsupportedOperationError(
        `Task ${task.id} has ended; send a new message with its contextId to continue the conversation`,
      );
    }
    const waiting = await access.pending(task);
    if (waiting.length === 0) {
      throw new UnsupportedOperationError(
        `Task ${task.id} is ${task.status === 'pending' ? 'submitted' : 'working'}; a message to a task only answers it while it is input-required`,
      );
    }
    const reply = readHumanInputReply(message, waiting);
    // The cursor is taken before the answer: whatever the answer sets off is streamed.
    const afterSeq = await storage.events.lastSeq(task.id);
    if (reply.kind === 'approval') {
      await runs.decideApproval(actor, task.id, reply.toolCallId, {
        decision: reply.approve ? 'approve' : 'reject',
        ...(reply.comment !== undefined ? { comment: reply.comment } : {}),
      });
    } else {
      await runs.answerQuestion(actor, task.id, reply.toolCallId, reply.answers);
    }
    return { run: await runs.getRun(actor, task.id), afterSeq };
  }

  async function start(params: SendMessageRequest): Promise<Touched> {
    const expert = await access.expertFor(params.tenant);
    const message: Message | undefined = params.message;
    if (message === undefined) throw new RequestMalformedError('params.message is required');
    if (message.taskId) return answer(message, message.taskId);
    const text = readUserText(message);
    const contextId = message.contextId;
    if (message.messageId.trim() === '')
      throw new RequestMalformedError('message.messageId is required: a non-empty string');
    const requestId = `${A2A_REQUEST_ID_PREFIX}${message.messageId}`;
    const prior = await replayed(requestId, expert.id, contextId);
    if (prior) return { run: prior, afterSeq: 0 };
    const conversation =
      contextId !== ''
        ? await access.ownConversation(contextId, expert)
        : await conversations.create(actor, { agent_id: expert.id });
    const started = await runs.postMessage(actor, conversation.id, {
      content: text,
      request_id: requestId,
      channel: 'api',
      ...delegatedRunInput(message, expert, deps.trustedCallers, scope.origin, new Date()),
    });
    return { run: started.run, afterSeq: 0 };
  }

  /** Blocking `SendMessage`: until the run ends or waits for a human (A2A's "interrupted" states). */
  async function untilSettled({ run, afterSeq }: Touched): Promise<void> {
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const events = await runs.streamEvents(actor, run.id, afterSeq, controller.signal);
      for await (const event of events) {
        if (event.type === 'end') return;
        // An input decided meanwhile (a replayed message) is history, not a wait.
        if (
          (event.type === 'approval_required' || event.type === 'question_required') &&
          (await access.pending(await runs.getRun(actor, run.id))).length > 0
        )
          return;
      }
    } finally {
      signal.removeEventListener('abort', stop);
      controller.abort();
    }
  }

  async function* stream(run: Run, afterSeq: number): AsyncGenerator<StreamResponse> {
    const [pending, evidence] = await Promise.all([access.pending(run), evidenceOf(run)]);
    yield { payload: { $case: 'task', value: runToTask(run, pending, { evidence }) } };
    if (isTerminalStatus(run.status)) return;
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      yield* translateRunEvents({
        run,
        state: toTaskState(run.status, pending.length > 0),
        events: await runs.streamEvents(actor, run.id, afterSeq, controller.signal),
        pending: () => access.pending(run),
        finish: async () => {
          const final = await runs.getRun(actor, run.id);
          const [pending, evidence] = await Promise.all([access.pending(final), evidenceOf(final)]);
          return { run: final, pending, evidence };
        },
      });
    } finally {
      signal.removeEventListener('abort', stop);
      controller.abort();
    }
  }

  /** Maps every failure to an A2A error; generators are wrapped so errors on iteration map too. */
  const guard = <T>(work: () => Promise<T>): Promise<T> =>
    work().catch((error: unknown) => {
      throw toA2AError(error, deps.onInternalError);
    });
  async function* guardStream(work: () => AsyncGenerator<StreamResponse>): AsyncGenerator<StreamResponse> {
    try {
      yield* work();
    } catch (error) {
      throw toA2AError(error, deps.onInternalError);
    }
  }
  const noPush = (): Promise<never> =>
    Promise.reject(
      new PushNotificationNotSupportedError(
        'This agent does not send push notifications; use SubscribeToTask or GetTask',
      ),
    );

  const { extendedCard } = scope;
  return {
    getAgentCard: () => Promise.resolve(scope.card),
    getAuthenticatedExtendedAgentCard: () =>
      extendedCard
        ? guard(extendedCard)
        : Promise.reject(
            new UnsupportedOperationError(
              "An expert's card has no extended version; the server card's (POST /a2a) lists every expert you may use",
            ),
          ),
    sendMessage: (params: SendMessageRequest) =>
      guard(async () => {
        const touched = await start(params);
        if (!params.configuration?.returnImmediately) await untilSettled(touched);
        return snapshot(touched.run.id, params.configuration?.historyLength);
      }),
    sendMessageStream: (params: SendMessageRequest) =>
      guardStream(async function* () {
        const touched = await start(params);
        yield* stream(touched.run, touched.afterSeq);
      }),
    getTask: (params: GetTaskRequest) =>
      guard(async () => snapshot((await access.loadTask(params.id)).id, params.historyLength)),
    listTasks: (params: ListTasksRequest): Promise<ListTasksResponse> =>
      guard(async () =>
        pageTasks(await access.listRuns(params.contextId ?? '', params.tenant ?? ''), params),
      ),
    cancelTask: (params: CancelTaskRequest) =>
      guard(async () => {
        const run = await access.loadTask(params.id);
        // Cancel is idempotent; only a task that ended otherwise is not cancelable.
        if (run.status === 'cancelled' || run.status === 'cancel_requested') return snapshot(run.id);
        if (isTerminalStatus(run.status))
          throw new TaskNotCancelableError(`Task ${run.id} has already ended (${run.status})`);
        await runs.cancel(actor, run.id);
        await runs.await(actor, run.id, CANCEL_WAIT_MS);
        return snapshot(run.id);
      }),
    resubscribe: (params: SubscribeToTaskRequest) =>
      guardStream(async function* () {
        const task = await access.loadTask(params.id);
        if (isTerminalStatus(task.status))
          throw new UnsupportedOperationError(`Task ${task.id} has ended; read it with GetTask`);
        // The cursor is taken before the snapshot: anything after it is streamed, nothing is lost in between.
        const afterSeq = await storage.events.lastSeq(task.id);
        yield* stream(await runs.getRun(actor, task.id), afterSeq);
      }),
    createTaskPushNotificationConfig: (_params: TaskPushNotificationConfig) => noPush(),
    getTaskPushNotificationConfig: noPush,
    listTaskPushNotificationConfigs: noPush,
    deleteTaskPushNotificationConfig: noPush,
  };
}
