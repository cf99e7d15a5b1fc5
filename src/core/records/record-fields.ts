import { z } from 'zod';

/**
 * Field schemas the record declarations share (docs/records-and-access.md#records-declared-once).
 * Timestamps are ISO 8601 UTC with milliseconds (`isoNow`).
 */
export const timestamp = z.string().describe('ISO 8601 time');
export const nullableTimestamp = timestamp.nullable();
