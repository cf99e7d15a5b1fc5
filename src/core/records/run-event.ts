import { z } from 'zod';
import { RUN_EVENT_BODIES, runEventLineageSchema, type RunEventLineage } from './run-event-payloads.js';

export const RUN_EVENT_TYPES = [
  'metadata',
  'message_delta',
  'tool_call',
  'tool_result',
  'step',
  'subagent_update',
  'approval_required',
  'error',
  'end',
  'question_required',
  'artifact',
  'model_retry',
  'model_fallback',
  'context_compacted',
  'verification',
] as const satisfies readonly (keyof typeof RUN_EVENT_BODIES)[];
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/** A type's own fields, without the lineage (what an emitter is given). */
export type RunEventBody<K extends RunEventType> = z.infer<(typeof RUN_EVENT_BODIES)[K]>;

/**
 * A type's stored payload: its fields and the run's lineage (docs/runs.md#events). A `subagent_update` carries
 * its parent's lineage, whose `parent_tool_call_id` is the child's starting call.
 */
export type RunEventPayload<K extends RunEventType> = RunEventLineage & RunEventBody<K>;

/**
 * A persisted run event, one variant per `type`: narrow on `type` to read its payload. `seq` is assigned by
 * storage, strictly increasing per run with no gaps; it is the SSE `id`, so a client that reconnects with
 * `Last-Event-ID` gets exactly what it missed.
 */
export type RunEvent = {
  [K in RunEventType]: {
    run_id: string;
    seq: number;
    type: K;
    payload: RunEventPayload<K>;
    created_at: string;
  };
}[RunEventType];

/** An event before it is appended, one variant per type: its own fields, the lineage still to add. */
export type RunEventDraft = { [K in RunEventType]: { type: K; payload: RunEventBody<K> } }[RunEventType];

/** The event of one type. */
export type RunEventOf<K extends RunEventType> = Extract<RunEvent, { type: K }>;

/**
 * An event as storage takes it. Storage keeps whatever payload it is given (its contract suites write
 * arbitrary ones); what the runtime emits is typed by `PendingEvent` and the emitter.
 */
export interface NewRunEvent {
  run_id: string;
  type: RunEventType;
  payload: Record<string, unknown>;
}

/** Every payload with the lineage fields, keyed by type. */
function payloadSchema<K extends RunEventType>(type: K) {
  return runEventLineageSchema.extend(RUN_EVENT_BODIES[type].shape);
}

function eventSchema<K extends RunEventType>(type: K) {
  return z.strictObject({
    run_id: z.string(),
    seq: z.number().int(),
    type: z.literal(type),
    payload: payloadSchema(type),
    created_at: z.string().describe('ISO 8601 time'),
  });
}

/**
 * The schema of every event (`RunEvent`), made from the same declarations as the type: the OpenAPI document
 * publishes it as the SSE route's `x-event-schema`, and tests check what the server emits against it.
 */
export const runEventSchema = z.discriminatedUnion('type', [
  eventSchema('metadata'),
  eventSchema('message_delta'),
  eventSchema('tool_call'),
  eventSchema('tool_result'),
  eventSchema('step'),
  eventSchema('subagent_update'),
  eventSchema('approval_required'),
  eventSchema('error'),
  eventSchema('end'),
  eventSchema('question_required'),
  eventSchema('artifact'),
  eventSchema('model_retry'),
  eventSchema('model_fallback'),
  eventSchema('context_compacted'),
  eventSchema('verification'),
]);

/**
 * An event read back from storage. Storage keeps the payloads it is given, and the runtime gives it only
 * what its emitters typed (`PendingEvent`), so a stored row is the event it was written as: the one place that
 * says so, for the adapters' row mappers. Tests check emitted events against `runEventSchema`.
 */
export function storedRunEvent(row: {
  run_id: string;
  seq: number;
  type: RunEventType;
  payload: Record<string, unknown>;
  created_at: string;
}): RunEvent {
  return row as RunEvent;
}

/** A child's status change on its parent's stream. */
export type SubagentUpdatePayload = RunEventPayload<'subagent_update'>;
