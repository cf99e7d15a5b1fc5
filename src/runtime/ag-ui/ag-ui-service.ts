import { isTroupeError, TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Agent } from '../../core/records/agent.js';
import type { Conversation } from '../../core/records/conversation.js';
import { isTerminalStatus, type Run } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import type { AgentService } from '../agents/agent-service.js';
import type { ConversationService } from '../conversations/conversation-service.js';
import type { RunServiceApi } from '../runs/run-service-api.js';
import { readResume, type ResumeEntry } from './ag-ui-interrupts.js';

/** The parts of an AG-UI `RunAgentInput` a run is started from (the route validates the rest). */
export interface AgUiRunRequest {
  threadId: string;
  runId: string;
  /** The new user message's text (the last message); earlier messages live in the conversation already. */
  text: string | undefined;
  resume: readonly ResumeEntry[];
}

/** The Troupe run an AG-UI run projects, and where its stream picks up. */
export interface AgUiStart {
  run: Run;
  afterSeq: number;
}

export interface AgUiService {
  start(actor: Actor, agentSlug: string, request: AgUiRunRequest): Promise<AgUiStart>;
}

export interface AgUiServiceDependencies {
  storage: Storage;
  agents: AgentService;
  conversations: ConversationService;
  runs: RunServiceApi;
}

/** Where an AG-UI thread id is kept on the conversation it maps to. */
const THREAD_KEY = 'ag_ui_thread_id';
const TITLE_LENGTH = 80;
const EVENT_PAGE = 500;
/** Request ids are per user; the prefix keeps AG-UI run ids apart from other clients' request ids. */
const REQUEST_ID_PREFIX = 'ag-ui:';

function titleOf(text: string): string {
  const line = text.trim().split('\n', 1)[0]?.trim() ?? '';
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1)}…` : line || 'AG-UI conversation';
}

/**
 * AG-UI runs over Troupe's services (docs/interoperability.md, README "AG-UI"): a thread is a conversation (the thread id
 * is either a conversation id of the caller's or a client's own id, remembered on the conversation it
 * started), each AG-UI run with a new user message is a Troupe run (`runId` its idempotency key), and a
 * run with `resume` entries decides the approvals and answers the questions its previous run stopped on,
 * then follows the same Troupe run on.
 */
export function createAgUiService(deps: AgUiServiceDependencies): AgUiService {
  const { storage, agents, conversations, runs } = deps;

  async function chatAgent(actor: Actor, slug: string): Promise<Agent> {
    const agent = await agents.get(actor, slug);
    if (agent.is_subagent) throw new TroupeError('agent_not_found', `Agent "${slug}" not found`);
    return agent;
  }

  async function knownConversation(
    actor: Actor,
    agent: Agent,
    threadId: string,
  ): Promise<Conversation | undefined> {
    const direct = await conversations.get(actor, threadId).catch((error: unknown) => {
      if (isTroupeError(error, 'conversation_not_found')) return undefined;
      throw error;
    });
    if (direct?.user_id === actor.id) {
      if (direct.agent_id !== agent.id) {
        throw new TroupeError(
          'validation_failed',
          `threadId ${threadId} is a conversation with another agent`,
          {
            details: {
              issues: [
                { path: 'body.threadId', message: 'a conversation with another agent', code: 'custom' },
              ],
            },
          },
        );
      }
      return direct;
    }
    const own = await storage.conversations.listForUser(actor.id, ['active', 'archived']);
    return own.find((entry) => entry.agent_id === agent.id && entry.metadata[THREAD_KEY] === threadId);
  }

  async function newConversation(
    actor: Actor,
    agent: Agent,
    threadId: string,
    text: string,
  ): Promise<Conversation> {
    const created = await conversations.create(actor, { agent_id: agent.id, title: titleOf(text) });
    return storage.conversations.update(created.id, {
      metadata: { ...created.metadata, [THREAD_KEY]: threadId },
    });
  }

  /** The seq the wait for one of `toolCallIds` was announced at: the resumed stream goes on after it. */
  async function waitAnnouncedAt(
    runId: string,
    toolCallIds: ReadonlySet<string>,
  ): Promise<number | undefined> {
    for (let after = 0; ;) {
      const events = await storage.events.list(runId, after, EVENT_PAGE);
      for (const event of events) {
        const announcesWait = event.type === 'approval_required' || event.type === 'question_required';
        if (announcesWait && toolCallIds.has(String(event.payload.tool_call_id))) return event.seq;
      }
      if (events.length < EVENT_PAGE) return undefined;
      after = events.at(-1)?.seq ?? after;
    }
  }

  async function resume(
    actor: Actor,
    conversation: Conversation,
    entries: readonly ResumeEntry[],
  ): Promise<AgUiStart> {
    const waiting = (await runs.listRunsOfConversation(actor, conversation.id)).filter(
      (run) => run.created_by_run_id === null && !isTerminalStatus(run.status),
    );
    const run = waiting[0];
    const pending = run
      ? (await storage.approvals.listForRun(run.id)).filter((input) => input.status === 'pending')
      : [];
    if (!run || pending.length === 0) {
      throw new TroupeError(
        'run_not_waiting',
        'Nothing in this thread waits for an answer; send a user message instead',
      );
    }
    const decisions = readResume(entries, pending);
    const cursor =
      (await waitAnnouncedAt(run.id, new Set(decisions.map((decision) => decision.toolCallId)))) ??
      (await storage.events.lastSeq(run.id));
    for (const decision of decisions) {
      if (decision.kind === 'approval') {
        await runs.decideApproval(actor, run.id, decision.toolCallId, {
          decision: decision.approve ? 'approve' : 'reject',
          ...(decision.comment !== undefined ? { comment: decision.comment } : {}),
        });
      } else if (decision.kind === 'question') {
        await runs.answerQuestion(actor, run.id, decision.toolCallId, decision.answers);
      } else {
        await runs.cancel(actor, run.id);
      }
    }
    return { run: await runs.getRun(actor, run.id), afterSeq: cursor };
  }

  return {
    async start(actor, agentSlug, request) {
      const agent = await chatAgent(actor, agentSlug);
      // A replayed runId (a client retrying, or reconnecting) follows the run it started, from its start.
      const requestId = `${REQUEST_ID_PREFIX}${request.runId}`;
      const replayed = await storage.runs.getByRequestId(actor.id, requestId);
      if (replayed?.agent_id === agent.id) return { run: replayed, afterSeq: 0 };
      const known = await knownConversation(actor, agent, request.threadId);
      if (request.resume.length > 0) {
        if (!known) throw new TroupeError('run_not_waiting', 'Nothing in this thread waits for an answer');
        return resume(actor, known, request.resume);
      }
      const text = request.text;
      if (text === undefined || text.trim() === '') {
        throw new TroupeError('validation_failed', 'The last message must be a user message with text', {
          details: {
            issues: [{ path: 'body.messages', message: 'the last message is not user text', code: 'custom' }],
          },
        });
      }
      const conversation = known ?? (await newConversation(actor, agent, request.threadId, text));
      const started = await runs.postMessage(actor, conversation.id, {
        content: text,
        request_id: requestId,
        channel: 'api',
      });
      return { run: started.run, afterSeq: 0 };
    },
  };
}
