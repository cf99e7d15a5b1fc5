import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Conversation } from '../../core/records/conversation.js';
import type { RunView, ToolApproval } from '../../core/records/run.js';
import { isTerminalStatus } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import type { RunServiceApi } from '../runs/run-service-api.js';

/** The input events `POST /v1/agents/sessions/{id}/events` takes, after the HTTP layer checked their shape. */
export type SessionInputEvent =
  | {
      type: 'agent.session.input.message';
      input: {
        role: 'user';
        content: ({ type: 'input_text'; text: string } | { type: 'input_image'; image_url: string })[];
      }[];
    }
  | {
      type: 'agent.session.input.mcp_approval_request_result';
      request_id: string;
      response: { type: 'mcp_tool_call'; decision: 'approve' | 'deny' | 'cancel' };
    }
  | {
      type: 'agent.session.input.tool_result';
      call_id: string;
      turn_id: string;
      success: boolean;
      error?: string | null | undefined;
      output?:
        | string
        | { type: 'input_text' | 'input_image'; text?: string; image_url?: string }[]
        | null
        | undefined;
    }
  | { type: 'agent.session.input.cancel' }
  | { type: 'agent.session.input.computer_use_approval_request_result' };

/** Request ids are per user; the prefix keeps the Agents API's idempotency keys apart from other clients'. */
export const AGENTS_API_REQUEST_ID_PREFIX = 'agents:';

export interface SessionInputContext {
  actor: Actor;
  runs: RunServiceApi;
  storage: Storage;
  conversation: Conversation;
  /** The session's last turn, if any. */
  last: RunView | undefined;
  /** The `Idempotency-Key` header. */
  idempotencyKey: string | undefined;
}

function invalid(param: string, message: string): TroupeError {
  return new TroupeError('validation_failed', message, { details: { param } });
}

/** The text of a user message: its text parts; images are refused (Troupe's messages are text). */
export function messageText(
  event: Extract<SessionInputEvent, { type: 'agent.session.input.message' }>,
  index: number,
): string {
  const texts: string[] = [];
  event.input.forEach((message, m) =>
    message.content.forEach((part, p) => {
      if (part.type !== 'input_text') {
        throw invalid(`events[${index}].input[${m}].content[${p}]`, 'Only input_text content is supported');
      }
      texts.push(part.text);
    }),
  );
  const text = texts.join('\n\n');
  if (text.trim() === '') throw invalid(`events[${index}].input`, 'The message has no text');
  return text;
}

/**
 * The answers a `tool_result` gives an `ask_user_question` call: a JSON array of strings or `{"answers":
 * [...]}`, one `input_text` part per question, or (for a single question) the text itself.
 */
export function answersOf(
  event: Extract<SessionInputEvent, { type: 'agent.session.input.tool_result' }>,
  index: number,
): string[] {
  if (!event.success) {
    throw invalid(
      `events[${index}].success`,
      'A question cannot fail: answer it, or cancel the turn with agent.session.input.cancel',
    );
  }
  const output = event.output;
  if (Array.isArray(output)) {
    return output.map((part, p) => {
      if (part.type !== 'input_text' || typeof part.text !== 'string')
        throw invalid(`events[${index}].output[${p}]`, 'Answers are input_text parts, one per question');
      return part.text;
    });
  }
  if (typeof output !== 'string' || output.trim() === '') {
    throw invalid(`events[${index}].output`, 'The answer has no text');
  }
  try {
    const parsed: unknown = JSON.parse(output);
    const list: unknown =
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as { answers?: unknown }).answers
        : parsed;
    if (Array.isArray(list) && list.every((item) => typeof item === 'string')) return list;
  } catch {
    // Plain text: the answer to a single question.
  }
  return [output];
}

/** A pending input of the session's waiting turn, by id, of the kind the event answers. */
function pendingInput(
  pending: readonly ToolApproval[],
  id: string,
  kind: ToolApproval['kind'],
  param: string,
): ToolApproval {
  const found = pending.find((input) => input.tool_call_id === id);
  if (found?.kind === kind) return found;
  if (found) {
    const use =
      found.kind === 'approval'
        ? 'agent.session.input.mcp_approval_request_result'
        : 'agent.session.input.tool_result';
    throw invalid(param, `${id} is answered with ${use}`);
  }
  throw new TroupeError(
    kind === 'approval' ? 'approval_not_found' : 'question_not_found',
    `Nothing of this session waits for ${id}`,
    {
      details: { param },
    },
  );
}

/**
 * Applies a batch of input events to a session, in order: a message starts a turn (a run of the conversation;
 * the `Idempotency-Key` is its request id, so a replay starts nothing), an approval result decides the
 * pending approval, a tool result answers the pending question, a cancel cancels the running turn. Every
 * event is checked against the session before any is applied, so a refused batch changes nothing.
 */
export async function applySessionInput(
  ctx: SessionInputContext,
  events: readonly SessionInputEvent[],
): Promise<void> {
  const { actor, runs, conversation, last } = ctx;
  const waiting = last !== undefined && !isTerminalStatus(last.status) ? last : undefined;
  const pending = waiting
    ? (await ctx.storage.approvals.listForRun(waiting.id)).filter((input) => input.status === 'pending')
    : [];
  const replay = ctx.idempotencyKey !== undefined;
  const messages = events.filter((event) => event.type === 'agent.session.input.message').length;
  const steps: (() => Promise<unknown>)[] = [];
  /** A replayed request may name an input its first delivery already decided: nothing left to do. */
  const alreadyDecided = async (id: string): Promise<boolean> => {
    if (!replay || last === undefined || pending.some((input) => input.tool_call_id === id)) return false;
    const decided = await ctx.storage.approvals.get(last.id, id);
    return decided !== undefined && decided.status !== 'pending';
  };
  for (const [index, event] of events.entries()) {
    switch (event.type) {
      case 'agent.session.input.message': {
        const content = messageText(event, index);
        const key = ctx.idempotencyKey;
        const requestId =
          key === undefined
            ? undefined
            : `${AGENTS_API_REQUEST_ID_PREFIX}${key}${messages > 1 ? `:${index}` : ''}`;
        steps.push(() =>
          runs.postMessage(actor, conversation.id, {
            content,
            channel: 'api',
            ...(requestId !== undefined ? { request_id: requestId } : {}),
          }),
        );
        continue;
      }
      case 'agent.session.input.mcp_approval_request_result': {
        const param = `events[${index}].request_id`;
        if (await alreadyDecided(event.request_id)) continue;
        const input = pendingInput(pending, event.request_id, 'approval', param);
        const decision = event.response.decision;
        steps.push(() =>
          runs.decideApproval(actor, input.run_id, input.tool_call_id, {
            decision: decision === 'approve' ? 'approve' : 'reject',
            ...(decision === 'cancel' ? { comment: 'The user dismissed the request' } : {}),
          }),
        );
        continue;
      }
      case 'agent.session.input.tool_result': {
        const param = `events[${index}].call_id`;
        if (await alreadyDecided(event.call_id)) continue;
        const input = pendingInput(pending, event.call_id, 'question', param);
        if (event.turn_id !== input.run_id)
          throw invalid(`events[${index}].turn_id`, `${event.call_id} belongs to turn ${input.run_id}`);
        const answers = answersOf(event, index);
        steps.push(() => runs.answerQuestion(actor, input.run_id, input.tool_call_id, answers));
        continue;
      }
      case 'agent.session.input.cancel': {
        // Nothing running is nothing to cancel: a repeated cancel is harmless.
        if (waiting) steps.push(() => runs.cancel(actor, waiting.id));
        continue;
      }
      case 'agent.session.input.computer_use_approval_request_result':
        throw new TroupeError(
          'not_supported',
          'Troupe has no computer use; nothing waits for such a result',
          {
            details: { param: `events[${index}].type` },
          },
        );
    }
  }
  for (const step of steps) await step();
}
