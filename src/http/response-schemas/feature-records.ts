import { z } from 'zod';
import {
  knowledgeDocumentRecord,
  knowledgeHitRecord,
  knowledgeSourceRecord,
} from '../../core/records/knowledge.js';
import { timestamp } from '../../core/records/record-fields.js';
import { skillFileInfoRecord, skillRecord } from '../../core/records/skill.js';
import { BUILD_REPORT_CODES } from '../../core/subagent-specs/build-report-entry.js';
import { budgetViewSchema, RESPONSE_SCHEMAS, runSchema, tokenUsageSchema } from './records.js';

/** The records of the feature routes (build reports, knowledge, skills, questions, traces), closed like the rest. */

export const buildReportEntrySchema = z
  .strictObject({
    code: z.enum(BUILD_REPORT_CODES),
    spec_index: z
      .number()
      .int()
      .nullable()
      .describe('Index in config.subagent_specs; null for the agent itself'),
    spec_name: z.string().optional(),
    value: z.string().describe('The offending value, as short JSON'),
    message: z.string(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'BuildReportEntry' });

export const buildReportSchema = z
  .strictObject({
    report: z.array(buildReportEntrySchema),
    dropped: z.boolean().describe('A spec or a value was dropped (warnings alone leave it false)'),
    subagents: z.array(
      z.strictObject({
        name: z.string(),
        description: z.string(),
        system_prompt: z.string(),
        tools: z.array(z.string()),
        model: z.string(),
        source: z.enum(['builtin', 'inline']),
        spec_index: z.number().int().nullable(),
        skills: z.array(z.string()).optional(),
        replaces_dropped_spec_index: z.number().int().optional(),
      }),
    ),
    parent_tools: z.array(z.string()),
  })
  .register(RESPONSE_SCHEMAS, { id: 'BuildReport' });

export const knowledgeSourceSchema = knowledgeSourceRecord.register(RESPONSE_SCHEMAS, {
  id: 'KnowledgeSource',
});

export const knowledgeDocumentSchema = knowledgeDocumentRecord.register(RESPONSE_SCHEMAS, {
  id: 'KnowledgeDocument',
});

export const knowledgeHitSchema = knowledgeHitRecord.register(RESPONSE_SCHEMAS, { id: 'KnowledgeHit' });

export const skillSchema = skillRecord.register(RESPONSE_SCHEMAS, { id: 'Skill' });

export const skillFileInfoSchema = skillFileInfoRecord;

const userQuestion = z.strictObject({ question: z.string(), options: z.array(z.string()).optional() });

export const runQuestionSchema = z
  .strictObject({
    run_id: z.string(),
    tool_call_id: z.string(),
    questions: z.array(userQuestion),
    status: z.enum(['pending', 'answered']),
    answers: z.array(z.string()).nullable(),
    created_at: timestamp,
    answered_at: timestamp.nullable(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'RunQuestion' });

const timelineSpan = z.strictObject({
  kind: z.enum(['model', 'tool', 'wait']).describe("`wait`: a model call's back-off before a retry"),
  id: z.string(),
  step: z.number().int().nullable(),
  name: z.string(),
  tool_call_id: z.string().nullable(),
  started_at: timestamp,
  ended_at: timestamp.nullable(),
  status: z.enum(['running', 'done', 'error', 'awaiting_approval', 'cancelled', 'interrupted']),
  usage: z.strictObject({ input_tokens: z.number(), output_tokens: z.number() }).nullable(),
  note: z.string().optional().describe('Why a model attempt failed and what came next, or why a wait waits'),
});

export const runTraceSchema = z
  .strictObject({
    root_run_id: z.string(),
    run_id: z.string(),
    generated_at: timestamp,
    nodes: z.array(
      z.strictObject({
        run: runSchema,
        agent: z.strictObject({ id: z.string(), slug: z.string().nullable(), name: z.string().nullable() }),
        display_name: z.string(),
        parent_run_id: z.string().nullable(),
        child_run_ids: z.array(z.string()),
        timeline: z.strictObject({
          last_seq: z.number().int(),
          model: z.string().nullable(),
          call_model: z
            .string()
            .nullable()
            .optional()
            .describe('The model a fallback gave the call in progress, until its step ends'),
          attempts: z.number().int(),
          segments: z
            .array(
              z.strictObject({ attempt: z.number().int(), started_at: timestamp, last_event_at: timestamp }),
            )
            .describe(
              "Each attempt's stretch of time; the gaps between them are when nobody worked on the run",
            ),
          spans: z.array(timelineSpan),
          marks: z
            .array(
              z.strictObject({
                kind: z.literal('verdict'),
                seq: z.number().int(),
                at: timestamp,
                run_id: z.string().describe('The judged child run'),
                verdict: z.enum(['satisfied', 'needs_revision', 'failed', 'unverified']),
                reasons: z.array(z.string()),
                flags: z.array(z.string()).describe('The evidence flags'),
                final: z.boolean().describe('False when a revision follows'),
                grader_run_id: z.string().nullable(),
              }),
            )
            .optional()
            .describe("Verdicts on the run's children's results, at their verification events"),
          model_started_at: timestamp.nullable(),
          model_streamed: z.boolean(),
          last_event_at: timestamp.nullable(),
          ended: z.strictObject({ status: z.string(), at: timestamp }).nullable(),
        }),
        totals: z.strictObject({
          own: tokenUsageSchema,
          children: tokenUsageSchema,
          subtree: tokenUsageSchema,
        }),
        budget: budgetViewSchema.nullable(),
      }),
    ),
  })
  .register(RESPONSE_SCHEMAS, { id: 'RunTrace' });
