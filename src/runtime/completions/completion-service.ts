import { TroupeError } from '../../core/errors.js';
import type { Agent } from '../../core/records/agent.js';
import type { Conversation } from '../../core/records/conversation.js';
import type { Run } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import type { AgentService } from '../agents/agent-service.js';
import type { ConversationService } from '../conversations/conversation-service.js';
import type { RunServiceApi } from '../runs/run-service-api.js';

export interface CompletionStart {
  agent: Agent;
  conversation: Conversation;
  run: Run;
}

/**
 * How following a run ended: at its `end`, or when it stopped to wait for a human (an approval), which
 * no completion client can give; the run then continues in its conversation once decided.
 */
export type CompletionOutcome =
  { kind: 'ended'; run: Run } | { kind: 'waiting'; run: Run; toolName: string; toolCallId: string };

export interface StartCompletionInput {
  /** The agent's slug (or id). */
  model: string;
  /** Continue this conversation of the actor's; absent starts a new one. */
  conversationId?: string;
  content: string;
}

/**
 * Chat-completion semantics over Troupe's own services (docs/interoperability.md): a "model" is a chat agent the user may
 * use, and a completion is one run in a conversation. Nothing here runs an agent itself; runs are started,
 * followed and cancelled through the run service, exactly as the `/api` routes do.
 */
export interface CompletionService {
  listModels(actor: Actor): Promise<Agent[]>;
  /** A chat agent the actor may use; a subagent or anything else is `agent_not_found`. */
  getModel(actor: Actor, model: string): Promise<Agent>;
  start(actor: Actor, input: StartCompletionInput): Promise<CompletionStart>;
  /**
   * Feeds the run's assistant text to `onText` as it streams (the text of successive steps separated by a
   * blank line; tool activity omitted) until the run ends or waits for a human. Stops early when `signal`
   * aborts (the caller cancels the run then).
   */
  follow(
    actor: Actor,
    runId: string,
    signal: AbortSignal,
    onText: (text: string) => Promise<void>,
    /**
     * A model call's failed attempt is retried (`model_retry`, `model_fallback`): the last `chars` characters
     * given to `onText` are void. A caller that can still take them back (one that buffers) does.
     */
    onDiscard?: (chars: number) => void,
  ): Promise<CompletionOutcome>;
}

export interface CompletionServiceDependencies {
  agents: AgentService;
  conversations: ConversationService;
  runs: RunServiceApi;
}

function modelNotFound(model: string): TroupeError {
  return new TroupeError(
    'agent_not_found',
    `The model "${model}" does not exist or you do not have access to it`,
    {
      details: { param: 'model' },
    },
  );
}

const NOT_FOUND: ReadonlySet<string> = new Set(['conversation_not_found']);
/** Refusals of a post that come from the conversation's state, not from the message. */
const CONVERSATION_STATE_CODES: ReadonlySet<string> = new Set(['run_busy', 'conversation_archived']);

/**
 * A service's client error, naming the request field at fault (OpenAI's `param`); anything else as is.
 * `only` restricts it to some codes, when others of the same call are about another field.
 */
function withParam(error: unknown, param: string, only?: ReadonlySet<string>): unknown {
  if (!(error instanceof TroupeError) || error.code === 'internal') return error;
  if (only !== undefined && !only.has(error.code)) return error;
  if (error.details?.param !== undefined) return error;
  return new TroupeError(error.code, error.message, { details: { ...error.details, param }, cause: error });
}

export function createCompletionService(deps: CompletionServiceDependencies): CompletionService {
  const { agents, conversations, runs } = deps;

  async function getModel(actor: Actor, model: string): Promise<Agent> {
    let agent: Agent;
    try {
      agent = await agents.get(actor, model);
    } catch (error) {
      if (error instanceof TroupeError && error.code === 'agent_not_found') throw modelNotFound(model);
      throw error;
    }
    // Subagents are not listed as models, so naming one is the same miss as naming nothing.
    if (agent.is_subagent) throw modelNotFound(model);
    return agent;
  }

  async function conversationFor(
    actor: Actor,
    agent: Agent,
    input: StartCompletionInput,
  ): Promise<Conversation> {
    if (input.conversationId === undefined) {
      // Untitled: the first message names it (runs.postMessage).
      return conversations.create(actor, { agent_id: agent.id });
    }
    const conversation = await conversations.get(actor, input.conversationId).catch((error: unknown) => {
      throw withParam(error, 'conversation_id', NOT_FOUND);
    });
    // An admin may read anyone's conversation but only posts to their own, like the /api route.
    if (conversation.user_id !== actor.id) {
      throw new TroupeError('conversation_not_found', `Conversation "${input.conversationId}" not found`, {
        details: { param: 'conversation_id' },
      });
    }
    if (conversation.agent_id !== agent.id) {
      throw new TroupeError(
        'validation_failed',
        `Conversation "${conversation.id}" belongs to another agent; send the model it was started with`,
        { details: { param: 'model' } },
      );
    }
    return conversation;
  }

  return {
    listModels: (actor) => agents.list(actor),

    getModel,

    async start(actor, input) {
      // Checked before anything is created, so a refused request leaves no empty conversation behind.
      if (input.content.trim() === '') {
        throw new TroupeError('validation_failed', 'The last user message has no text', {
          details: { param: 'messages' },
        });
      }
      const agent = await getModel(actor, input.model);
      const conversation = await conversationFor(actor, agent, input);
      const { run } = await runs
        .postMessage(actor, conversation.id, { content: input.content, channel: 'api' })
        .catch((error: unknown) => {
          // A conversation that is busy or archived is the client's `conversation_id` at fault.
          throw withParam(error, 'conversation_id', CONVERSATION_STATE_CODES);
        });
      return { agent, conversation, run };
    },

    async follow(actor, runId, signal, onText, onDiscard) {
      const events = await runs.streamEvents(actor, runId, 0, signal);
      let wroteText = false;
      let newStep = false;
      for await (const event of events) {
        if (event.type === 'message_delta') {
          const text = event.payload.text;
          if (text === '') continue;
          if (newStep && wroteText) await onText('\n\n');
          newStep = false;
          wroteText = true;
          await onText(text);
        } else if (event.type === 'tool_call' || event.type === 'step') {
          newStep = true;
        } else if (event.type === 'model_retry' || event.type === 'model_fallback') {
          const discarded = event.payload.discarded_chars;
          if (discarded > 0) onDiscard?.(discarded);
        } else if (event.type === 'approval_required' || event.type === 'question_required') {
          return {
            kind: 'waiting',
            run: await runs.getRun(actor, runId),
            // A question's call is `ask_user_question`'s, which its event does not name.
            toolName: event.type === 'approval_required' ? event.payload.name : '',
            toolCallId: event.payload.tool_call_id,
          };
        } else if (event.type === 'end') {
          break;
        }
      }
      signal.throwIfAborted();
      return { kind: 'ended', run: await runs.getRun(actor, runId) };
    },
  };
}
