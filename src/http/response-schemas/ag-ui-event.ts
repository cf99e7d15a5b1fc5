import { z } from 'zod';
import { RESPONSE_SCHEMAS } from './records.js';

/**
 * The AG-UI 1.0 events `POST /ag-ui/{id}` sends (one per SSE `data:` frame), closed: the e2e suite parses
 * every frame it receives with this schema, so the document names every field the stream carries.
 */
const attributed = { subagentRunId: z.string().optional() };
const json = z.unknown();
const tokenUsage = z.strictObject({
  model: z.string(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  totalTokens: z.number().int(),
});
const interrupt = z.strictObject({
  id: z.string().describe('The tool call id of the approval or question'),
  reason: z.enum(['tool_approval', 'question']),
  message: z.string(),
  toolCallId: z.string(),
  responseSchema: z.record(z.string(), json).describe('JSON Schema of the resume payload'),
  metadata: z.record(z.string(), json),
});

export const AG_UI_EVENT_SCHEMA = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('RUN_STARTED'),
      threadId: z.string(),
      runId: z.string(),
      metadata: z.strictObject({
        troupe: z.strictObject({ run_id: z.string(), conversation_id: z.string() }),
      }),
    }),
    z.strictObject({
      type: z.literal('RUN_FINISHED'),
      threadId: z.string(),
      runId: z.string(),
      result: z.string().optional().describe("The run's answer"),
      outcome: z.discriminatedUnion('type', [
        z.strictObject({ type: z.literal('success') }),
        z.strictObject({ type: z.literal('cancelled') }),
        z.strictObject({ type: z.literal('interrupt'), interrupts: z.array(interrupt) }),
      ]),
      usage: z.array(tokenUsage).optional(),
    }),
    z.strictObject({
      type: z.literal('RUN_ERROR'),
      message: z.string(),
      code: z.string().describe("The run's error type"),
      usage: z.array(tokenUsage).optional(),
    }),
    z.strictObject({ type: z.literal('STEP_STARTED'), ...attributed, stepName: z.string() }),
    z.strictObject({ type: z.literal('STEP_FINISHED'), ...attributed, stepName: z.string() }),
    z.strictObject({
      type: z.literal('TEXT_MESSAGE_START'),
      ...attributed,
      messageId: z.string(),
      role: z.literal('assistant'),
    }),
    z.strictObject({
      type: z.literal('TEXT_MESSAGE_CONTENT'),
      ...attributed,
      messageId: z.string(),
      delta: z.string(),
    }),
    z.strictObject({ type: z.literal('TEXT_MESSAGE_END'), ...attributed, messageId: z.string() }),
    z.strictObject({
      type: z.literal('TOOL_CALL_START'),
      ...attributed,
      toolCallId: z.string(),
      toolCallName: z.string(),
      parentMessageId: z.string().optional(),
    }),
    z.strictObject({
      type: z.literal('TOOL_CALL_ARGS'),
      ...attributed,
      toolCallId: z.string(),
      delta: z.string().describe('The arguments as JSON'),
    }),
    z.strictObject({ type: z.literal('TOOL_CALL_END'), ...attributed, toolCallId: z.string() }),
    z.strictObject({
      type: z.literal('TOOL_CALL_RESULT'),
      ...attributed,
      messageId: z.string(),
      toolCallId: z.string(),
      content: z.string(),
      role: z.literal('tool'),
    }),
    z.strictObject({
      type: z.literal('STATE_SNAPSHOT'),
      snapshot: z.record(z.string(), json).describe("The client's state with Troupe's under `troupe`"),
    }),
    z.strictObject({
      type: z.literal('STATE_DELTA'),
      delta: z.array(
        z
          .strictObject({ op: z.enum(['add', 'replace']), path: z.string(), value: json })
          .describe('RFC 6902'),
      ),
    }),
    z.strictObject({
      type: z.literal('SUBAGENT_STARTED'),
      subagentRunId: z.string().describe("The child run's id"),
      name: z.string(),
      description: z.string().optional(),
      parentSubagentRunId: z.string().optional(),
      parentToolCallId: z.string().optional(),
      metadata: z.strictObject({
        runId: z.string(),
        parentRunId: z.string().describe('The run that started it: the AG-UI runId for the top-level run'),
        kind: z.enum(['subagent', 'delegation', 'grader']),
      }),
    }),
    z.strictObject({
      type: z.literal('SUBAGENT_FINISHED'),
      subagentRunId: z.string(),
      result: z.string().optional(),
      outcome: z.discriminatedUnion('type', [
        z.strictObject({ type: z.literal('success') }),
        z.strictObject({ type: z.literal('suspended') }),
      ]),
      metadata: z.strictObject({ troupe_status: z.string() }).optional(),
    }),
    z.strictObject({
      type: z.literal('SUBAGENT_ERROR'),
      subagentRunId: z.string(),
      message: z.string(),
      code: z.string(),
    }),
    z.strictObject({
      type: z.literal('CUSTOM'),
      ...attributed,
      name: z.literal('troupe.artifact'),
      value: z.record(z.string(), json).describe('The `artifact` run event payload'),
    }),
  ])
  .register(RESPONSE_SCHEMAS, { id: 'AgUiEvent' });
