import type { RunEvent } from '../../core/records/run-event.js';
import { isTerminalStatus } from '../../core/records/run.js';
import type { ApiItem, ApiSubagent } from './agents-api-objects.js';
import { seconds } from './turn-object.js';

/** The tool whose call waits for the user's answers: its call is announced once it waits (see below). */
const QUESTION_TOOL = 'ask_user_question';

/** A session event without its `event_id` (the stream numbers them). */
export type SessionEventBody = { type: string } & Record<string, unknown>;

type AssistantMessage = Extract<ApiItem, { type: 'message' }>;

/**
 * One turn's run events as the Agents API's session events (docs/interoperability.md#openai-agents-api): text
 * deltas stream into an assistant `message` item (`item.added`, `content_part.added`, `output_text.delta`…,
 * then `output_text.done`, `content_part.done`, `item.done` when the model turns to tools or ends); a tool
 * call is a `function_call` item, done with its `function_call_output`; a subagent's first update is
 * `subagent.created` and its end `subagent.closed`. An `ask_user_question` call is announced when the run
 * waits for it, not before, so a client that answers it at once (the SDK's tool handlers) finds it pending.
 */
export class TurnEventTranslator {
  private outputIndex = 0;
  private message: { item: AssistantMessage; index: number; text: string } | undefined;
  private readonly calls = new Map<
    string,
    { item: Extract<ApiItem, { type: 'function_call' }>; index: number }
  >();
  private readonly heldQuestions = new Map<string, { name: string; args: unknown }>();
  private readonly subagents = new Map<string, ApiSubagent>();

  constructor(
    private readonly sessionId: string,
    private readonly turnId: string,
    private readonly agentId: string,
  ) {}

  private base() {
    return { session_id: this.sessionId, turn_id: this.turnId };
  }

  /** Closes the open assistant message: `commentary` when tools follow, `final_answer` at the turn's end. */
  closeMessage(phase: 'commentary' | 'final_answer'): SessionEventBody[] {
    const open = this.message;
    if (!open) return [];
    this.message = undefined;
    const part = { type: 'output_text', text: open.text };
    const common = { ...this.base(), item_id: open.item.id, output_index: open.index, content_index: 0 };
    const item: AssistantMessage = {
      ...open.item,
      phase,
      status: 'completed',
      content: [{ type: 'output_text', text: open.text }],
    };
    return [
      { type: 'agent.session.turn.output_text.done', ...common, text: open.text },
      { type: 'agent.session.turn.content_part.done', ...common, part },
      { type: 'agent.session.turn.item.done', ...this.base(), item, output_index: open.index },
    ];
  }

  private callAdded(toolCallId: string, name: string, args: unknown): SessionEventBody[] {
    const item = {
      type: 'function_call' as const,
      id: `fc_${toolCallId}`,
      call_id: toolCallId,
      name,
      arguments: args ?? null,
      status: 'in_progress' as const,
      turn_id: this.turnId,
    };
    const index = this.outputIndex++;
    this.calls.set(toolCallId, { item, index });
    return [{ type: 'agent.session.turn.item.added', ...this.base(), item, output_index: index }];
  }

  private subagentEvent(event: RunEvent & { type: 'subagent_update' }): SessionEventBody[] {
    const update = event.payload;
    const known = this.subagents.get(update.child_conversation_id);
    const closed = isTerminalStatus(update.status);
    const subagent: ApiSubagent = known
      ? {
          ...known,
          status: closed ? 'closed' : 'active',
          closed_at: closed ? seconds(event.created_at) : null,
        }
      : {
          id: update.child_conversation_id,
          object: 'agent.session.subagent',
          session_id: this.sessionId,
          name: update.slug,
          parent_agent_id: this.agentId,
          instructions: [{ type: 'output_text', text: update.description }],
          status: closed ? 'closed' : 'active',
          opened_at: seconds(event.created_at),
          closed_at: closed ? seconds(event.created_at) : null,
        };
    this.subagents.set(update.child_conversation_id, subagent);
    const out: SessionEventBody[] = [];
    if (!known) out.push({ type: 'agent.session.subagent.created', subagent });
    else if (!closed && known.status === 'closed')
      out.push({ type: 'agent.session.subagent.active', subagent });
    if (closed && known?.status !== 'closed') out.push({ type: 'agent.session.subagent.closed', subagent });
    return out;
  }

  /** The session events one run event stands for (none for the run's bookkeeping events). */
  translate(event: RunEvent): SessionEventBody[] {
    switch (event.type) {
      case 'message_delta': {
        if (event.payload.text === '') return [];
        const out: SessionEventBody[] = [];
        if (!this.message) {
          const item: AssistantMessage = {
            type: 'message',
            id: `msg_${this.turnId}_${event.seq}`,
            role: 'assistant',
            content: [],
            phase: null,
            status: 'in_progress',
            turn_id: this.turnId,
          };
          this.message = { item, index: this.outputIndex++, text: '' };
          const common = { ...this.base(), item_id: item.id, output_index: this.message.index };
          out.push({
            type: 'agent.session.turn.item.added',
            ...this.base(),
            item,
            output_index: this.message.index,
          });
          out.push({
            type: 'agent.session.turn.content_part.added',
            ...common,
            content_index: 0,
            part: { type: 'output_text', text: '' },
          });
        }
        const open = this.message;
        open.text += event.payload.text;
        out.push({
          type: 'agent.session.turn.output_text.delta',
          ...this.base(),
          item_id: open.item.id,
          output_index: open.index,
          content_index: 0,
          delta: event.payload.text,
        });
        return out;
      }
      case 'step':
        return this.closeMessage(event.payload.tool_calls > 0 ? 'commentary' : 'final_answer');
      case 'tool_call': {
        const out = this.closeMessage('commentary');
        if (event.payload.name === QUESTION_TOOL) {
          this.heldQuestions.set(event.payload.tool_call_id, {
            name: event.payload.name,
            args: event.payload.args,
          });
          return out;
        }
        return [
          ...out,
          ...this.callAdded(event.payload.tool_call_id, event.payload.name, event.payload.args),
        ];
      }
      case 'question_required': {
        const held = this.heldQuestions.get(event.payload.tool_call_id);
        this.heldQuestions.delete(event.payload.tool_call_id);
        return this.callAdded(event.payload.tool_call_id, held?.name ?? QUESTION_TOOL, {
          questions: event.payload.questions,
        });
      }
      case 'tool_result': {
        const id = event.payload.tool_call_id;
        // A question's call the run ended before it waited: announced now, with its result.
        const held = this.heldQuestions.get(id);
        const out = held ? this.callAdded(id, held.name, held.args) : [];
        this.heldQuestions.delete(id);
        const call = this.calls.get(id);
        if (!call) return out;
        const failed = event.payload.is_error;
        const output = event.payload.output;
        const text =
          typeof output === 'string' ? output : output === undefined ? null : JSON.stringify(output);
        const done = { ...call.item, status: failed ? ('failed' as const) : ('completed' as const) };
        const result = {
          type: 'function_call_output' as const,
          id: `fco_${id}`,
          call_id: id,
          output: failed ? null : text,
          error: failed ? (text ?? event.payload.result ?? 'The call failed') : null,
          status: failed ? ('failed' as const) : ('completed' as const),
          turn_id: this.turnId,
        };
        return [
          ...out,
          { type: 'agent.session.turn.item.done', ...this.base(), item: done, output_index: call.index },
          {
            type: 'agent.session.turn.item.added',
            ...this.base(),
            item: result,
            output_index: this.outputIndex++,
          },
        ];
      }
      case 'subagent_update':
        return this.subagentEvent(event);
      case 'end':
        return this.closeMessage('final_answer');
      // Bookkeeping, or said by the session events the stream adds (requires_action, the turn's end).
      case 'metadata':
      case 'approval_required':
      case 'artifact':
      case 'error':
      case 'model_retry':
      case 'model_fallback':
      case 'context_compacted':
      case 'verification':
        return [];
    }
  }
}
