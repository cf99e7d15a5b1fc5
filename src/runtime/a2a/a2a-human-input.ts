import type { Message, Part } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { questionsOf } from '../../core/questions/user-questions.js';
import type { ToolApproval } from '../../core/records/run.js';
import { dataPart, textPart } from './a2a-parts.js';

/** What an `input-required` task's follow-up message decides: one approval, or one question's answers. */
export type HumanInputReply =
  | { kind: 'approval'; toolCallId: string; approve: boolean; comment?: string }
  | { kind: 'question'; toolCallId: string; answers: string[] };

type Json = Record<string, unknown>;

function invalid(message: string): RequestMalformedError {
  return new RequestMalformedError(message);
}

/** A pending human input as the status message's data part lists it, for clients that act on it. */
function describe(input: ToolApproval): Json {
  if (input.kind === 'question') {
    return { tool_call_id: input.tool_call_id, kind: 'question', questions: questionsOf(input.args) };
  }
  return {
    tool_call_id: input.tool_call_id,
    kind: 'approval',
    tool_name: input.tool_name,
    args: input.args ?? null,
  };
}

function describeText(input: ToolApproval): string {
  if (input.kind === 'approval') return `approve or reject the ${input.tool_name} call ${input.tool_call_id}`;
  const questions = questionsOf(input.args)
    .map((entry, index) => {
      const options = entry.options ? ` (options: ${entry.options.join(' / ')})` : '';
      return `${index + 1}. ${entry.question}${options}`;
    })
    .join('\n');
  return `answer (tool call ${input.tool_call_id}):\n${questions}`;
}

/**
 * The status message of a task waiting for a human (README "A2A"): what waits, and how to answer it over
 * A2A — a message with the task's id whose data part is `{"approve": true|false}`, or whose text parts
 * answer the questions — with a data part listing the pending inputs for clients that act on them.
 */
export function inputRequiredParts(runId: string, pending: readonly ToolApproval[]): Part[] {
  const lines = pending.map((input) => `- ${describeText(input)}`).join('\n');
  const text =
    `Waiting for a human:\n${lines || '- a tool call'}\n` +
    'Reply with a message carrying this taskId: a data part {"approve": true} or {"approve": false} ' +
    'decides an approval; text parts (one per question, in order) or a data part {"answers": [...]} answer ' +
    'questions. With several inputs pending, add "tool_call_id" to the data part. The Troupe console and ' +
    `API can decide them too (POST /api/agent/runs/${runId}/approvals/{tool_call_id} or …/answers/{tool_call_id}).`;
  return [textPart(text), dataPart({ pending: pending.map(describe) })];
}

function dataOf(message: Message): Json[] {
  const objects: Json[] = [];
  for (const part of message.parts) {
    if (part.content?.$case !== 'data') continue;
    const value: unknown = part.content.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw invalid('message.parts: a data part answering a task must be a JSON object');
    objects.push(value as Json);
  }
  return objects;
}

function textsOf(message: Message): string[] {
  return message.parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []));
}

function target(pending: readonly ToolApproval[], kind: ToolApproval['kind'], asked: unknown): ToolApproval {
  if (asked !== undefined) {
    const found = pending.find((input) => input.tool_call_id === asked);
    if (!found)
      throw invalid(`message.parts: tool_call_id ${JSON.stringify(asked)} is not waiting for input`);
    if (found.kind !== kind) {
      throw invalid(
        `message.parts: tool call ${found.tool_call_id} waits for ${found.kind === 'approval' ? '{"approve": true|false}' : 'answers'}`,
      );
    }
    return found;
  }
  const candidates = pending.filter((input) => input.kind === kind);
  if (candidates.length === 1 && candidates[0]) return candidates[0];
  if (candidates.length === 0) {
    const waiting =
      pending[0]?.kind === 'approval'
        ? 'an approval: send {"approve": true} or {"approve": false}'
        : 'answers to its questions';
    throw invalid(`message.parts: this task waits for ${waiting}`);
  }
  throw invalid(
    `message.parts: several inputs are pending (${candidates.map((input) => input.tool_call_id).join(', ')}); name one with "tool_call_id" in a data part`,
  );
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
}

/**
 * Reads a follow-up message to an `input-required` task: a data part `{"approve": bool, "comment"?,
 * "tool_call_id"?}` decides an approval; a data part `{"answers": [...], "tool_call_id"?}`, or text parts
 * (one per question, or one text for a single question), answer a question. Anything else is `-32602`
 * saying what the task waits for.
 */
export function readHumanInputReply(message: Message, pending: readonly ToolApproval[]): HumanInputReply {
  const data = dataOf(message);
  if (data.length > 1) throw invalid('message.parts: send one data part per answer message');
  const [object] = data;
  if (object !== undefined) {
    const askedId = object.tool_call_id;
    if (askedId !== undefined && typeof askedId !== 'string')
      throw invalid('message.parts: tool_call_id must be a string');
    if ('approve' in object) {
      if (typeof object.approve !== 'boolean') throw invalid('message.parts: approve must be true or false');
      if (object.comment !== undefined && typeof object.comment !== 'string')
        throw invalid('message.parts: comment must be a string');
      const input = target(pending, 'approval', askedId);
      return {
        kind: 'approval',
        toolCallId: input.tool_call_id,
        approve: object.approve,
        ...(typeof object.comment === 'string' ? { comment: object.comment } : {}),
      };
    }
    if ('answers' in object) {
      const answers = stringList(object.answers);
      if (!answers) throw invalid('message.parts: answers must be an array of strings');
      return { kind: 'question', toolCallId: target(pending, 'question', askedId).tool_call_id, answers };
    }
    throw invalid('message.parts: a data part answering a task has "approve" or "answers"');
  }
  const texts = textsOf(message).filter((text) => text.trim() !== '');
  if (texts.length === 0) throw invalid('message.parts: the answer has no text or data');
  const input = target(pending, 'question', undefined);
  const questions = questionsOf(input.args).length;
  // A single question takes every text part as its answer; several take one part each, in order.
  const answers = questions === 1 ? [texts.join('\n')] : texts;
  return { kind: 'question', toolCallId: input.tool_call_id, answers };
}
