import { z } from 'zod';
import {
  comparedRunRecord,
  comparedStepRecord,
  comparedUsageRecord,
  runComparisonRecord,
  textDiffRecord,
} from '../../core/records/run-comparison.js';
import { forkOriginRecord } from '../../core/records/run.js';
import { conversationSchema, RESPONSE_SCHEMAS, runSchema } from './records.js';

/* The bodies of the fork and compare routes (docs/effects-and-forks.md), registered under their names. */

export const forkOriginSchema = forkOriginRecord.register(RESPONSE_SCHEMAS, { id: 'ForkOrigin' });

comparedUsageRecord.register(RESPONSE_SCHEMAS, { id: 'ComparedUsage' });
comparedStepRecord.register(RESPONSE_SCHEMAS, { id: 'ComparedStep' });
comparedRunRecord.register(RESPONSE_SCHEMAS, { id: 'ComparedRun' });
textDiffRecord.register(RESPONSE_SCHEMAS, { id: 'TextDiff' });

export const forkedRunSchema = z.strictObject({
  run: runSchema,
  conversation: conversationSchema.describe(
    'The new conversation; its `metadata.forked_from` names the source',
  ),
});

export const runComparisonSchema = z.strictObject({
  comparison: runComparisonRecord.register(RESPONSE_SCHEMAS, { id: 'RunComparison' }),
});
