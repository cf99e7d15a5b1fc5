import { TroupeError } from '../../core/errors.js';
import { questionsOf } from '../../core/questions/user-questions.js';
import type { ToolApproval } from '../../core/records/run.js';

/** What an AG-UI client sends back for one interrupt (`RunAgentInput.resume[]`). */
export interface ResumeEntry {
  interruptId: string;
  status: 'resolved' | 'cancelled';
  payload?: unknown;
}

/** A decision for one pending human input of the run, read from a resume entry. */
export type HumanDecision =
  | { kind: 'approval'; toolCallId: string; approve: boolean; comment?: string }
  | { kind: 'question'; toolCallId: string; answers: string[] }
  | { kind: 'cancel'; toolCallId: string };

/**
 * A pending approval or question of the run as an AG-UI interrupt: its id is the tool call's, and its
 * `responseSchema` says what the resume payload is (`{approve, comment?}` or `{answers: [...]}`).
 */
export function toInterrupt(input: ToolApproval): Record<string, unknown> {
  if (input.kind === 'question') {
    const questions = questionsOf(input.args);
    return {
      id: input.tool_call_id,
      reason: 'question',
      message: questions.map((entry) => entry.question).join('\n'),
      toolCallId: input.tool_call_id,
      responseSchema: {
        type: 'object',
        required: ['answers'],
        properties: {
          answers: {
            type: 'array',
            items: { type: 'string' },
            minItems: questions.length,
            maxItems: questions.length,
            description: 'One answer per question, in order',
          },
        },
      },
      metadata: { questions },
    };
  }
  return {
    id: input.tool_call_id,
    reason: 'tool_approval',
    message: `Approve or reject the ${input.tool_name} call`,
    toolCallId: input.tool_call_id,
    responseSchema: {
      type: 'object',
      required: ['approve'],
      properties: { approve: { type: 'boolean' }, comment: { type: 'string' } },
    },
    metadata: { tool_name: input.tool_name, args: input.args ?? null },
  };
}

function refuse(index: number, message: string): TroupeError {
  return new TroupeError('validation_failed', `resume[${index}]: ${message}`, {
    details: { issues: [{ path: `body.resume.${index}`, message, code: 'custom' }] },
  });
}

/**
 * Each resume entry as the decision it makes on the run's pending inputs: `resolved` with
 * `{approve, comment?}` decides an approval, with `{answers}` answers a question; `cancelled` rejects an
 * approval or cancels the run waiting on a question. An id that is not pending is refused.
 */
export function readResume(
  entries: readonly ResumeEntry[],
  pending: readonly ToolApproval[],
): HumanDecision[] {
  return entries.map((entry, index) => {
    const input = pending.find((candidate) => candidate.tool_call_id === entry.interruptId);
    if (!input) throw refuse(index, `interrupt ${entry.interruptId} is not waiting for an answer`);
    if (entry.status === 'cancelled') {
      return input.kind === 'approval'
        ? {
            kind: 'approval',
            toolCallId: input.tool_call_id,
            approve: false,
            comment: 'Cancelled by the user',
          }
        : { kind: 'cancel', toolCallId: input.tool_call_id };
    }
    const payload = (
      typeof entry.payload === 'object' && entry.payload !== null ? entry.payload : {}
    ) as Record<string, unknown>;
    if (input.kind === 'approval') {
      if (typeof payload.approve !== 'boolean') throw refuse(index, 'payload.approve must be true or false');
      if (payload.comment !== undefined && typeof payload.comment !== 'string')
        throw refuse(index, 'payload.comment must be a string');
      return {
        kind: 'approval',
        toolCallId: input.tool_call_id,
        approve: payload.approve,
        ...(typeof payload.comment === 'string' ? { comment: payload.comment } : {}),
      };
    }
    const answers = payload.answers;
    if (!Array.isArray(answers) || !answers.every((answer) => typeof answer === 'string'))
      throw refuse(index, 'payload.answers must be an array of strings');
    return { kind: 'question', toolCallId: input.tool_call_id, answers };
  });
}
