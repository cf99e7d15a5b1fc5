import { z } from 'zod';
import { forkOriginRecord, runErrorRecord, RUN_STATUSES, RUN_TYPES } from './run.js';

/** Tokens, model calls and cost of a run, or of it with everything below it (docs/effects-and-forks.md#compare). */
export const comparedUsageRecord = z.strictObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  model_calls: z.number(),
  cost_usd: z.number().nullable().describe('With TROUPE_MODEL_PRICES; null otherwise'),
});
export type ComparedUsage = z.infer<typeof comparedUsageRecord>;

export const comparedStepRecord = z.strictObject({
  step: z.number().int().describe('The n-th model call of the run'),
  text: z.string().describe('What the model wrote in that turn, cut at 500 characters'),
  tool_calls: z.array(
    z.strictObject({
      name: z.string(),
      is_error: z.boolean().nullable().describe('null: the call has no result'),
    }),
  ),
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  copied: z
    .boolean()
    .describe("A fork's step copied from its source (not run by it); left out of the tool-call totals"),
});
export type ComparedStep = z.infer<typeof comparedStepRecord>;

export interface ComparedRun {
  run_id: string;
  run_type: (typeof RUN_TYPES)[number];
  status: (typeof RUN_STATUSES)[number];
  agent_id: string;
  subagent_name: string | null;
  model_spec: string;
  forked_from: z.infer<typeof forkOriginRecord> | null;
  input_preview: string;
  duration_ms: number | null;
  own: ComparedUsage;
  subtree: ComparedUsage;
  steps: ComparedStep[];
  tool_calls: { total: number; errors: number; by_name: Record<string, number> };
  output: string | null;
  error: z.infer<typeof runErrorRecord> | null;
  children: ComparedRun[];
}

/** One side of a comparison: a run and, nested, the runs it created, each with its steps and figures. */
export const comparedRunRecord: z.ZodType<ComparedRun> = z.strictObject({
  run_id: z.string(),
  run_type: z.enum(RUN_TYPES),
  status: z.enum(RUN_STATUSES),
  agent_id: z.string(),
  subagent_name: z.string().nullable().describe('The inline spec an inline subagent run plays'),
  model_spec: z.string(),
  forked_from: forkOriginRecord.nullable(),
  input_preview: z.string().describe('The input message on one line, cut at a word boundary'),
  duration_ms: z.number().nullable().describe('From start to finish; null until the run has both'),
  own: comparedUsageRecord,
  subtree: comparedUsageRecord,
  steps: z.array(comparedStepRecord),
  tool_calls: z
    .strictObject({
      total: z.number().int(),
      errors: z.number().int(),
      by_name: z.record(z.string(), z.number().int()).describe('Calls per tool name'),
    })
    .describe('The calls the run made itself (copied steps left out)'),
  output: z.string().nullable(),
  error: runErrorRecord.nullable(),
  get children() {
    return z.array(comparedRunRecord);
  },
});

export const textDiffRecord = z.strictObject({
  unit: z
    .enum(['word', 'line', 'whole'])
    .describe('word by word; line by line for long outputs; whole when even that is too big'),
  parts: z.array(
    z.strictObject({
      op: z.enum(['equal', 'insert', 'delete']).describe('insert: only in b; delete: only in a'),
      text: z.string(),
    }),
  ),
});

export const runComparisonRecord = z.strictObject({
  a: comparedRunRecord,
  b: comparedRunRecord,
  output_diff: textDiffRecord.describe("From a's final output to b's"),
});
export type RunComparison = z.infer<typeof runComparisonRecord>;
