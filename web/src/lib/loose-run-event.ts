import type { RunEvent, RunEventType } from '../api/types.ts';

/**
 * An event with a payload of only the fields a test exercises, or of an older server's shape: the console
 * folds what arrives and must not trust that every field is there. Test data only.
 */
export function looseRunEvent(
  type: RunEventType,
  payload: Record<string, unknown>,
  at: { runId?: string; seq?: number; createdAt?: string } = {},
): RunEvent {
  return {
    run_id: at.runId ?? 'run_1',
    seq: at.seq ?? 1,
    type,
    payload,
    created_at: at.createdAt ?? '2030-01-01T00:00:00.000Z',
  } as RunEvent;
}
