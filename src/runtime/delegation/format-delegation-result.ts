import { DELEGATION_TEXTS } from '../../core/delegation/delegation-texts.js';
import type { Run } from '../../core/records/run.js';
import { formatChildResult } from '../subagents/format-child-result.js';

/**
 * What the delegating model gets for a finished delegation run: the expert's final text (kept in a
 * workdir file when big, like a subagent's), or for a failed/cancelled/interrupted run its status
 * and error, as an error result — never passed off as an answer.
 */
export async function formatDelegationResult(
  run: Run,
  workdir: string,
  limits: Parameters<typeof formatChildResult>[2],
): Promise<{ text: string; isError: boolean }> {
  if (run.status !== 'completed') {
    return {
      text: DELEGATION_TEXTS.runEnded(run.status, run.error?.message ?? 'no error message'),
      isError: true,
    };
  }
  if (!run.output?.trim()) return { text: DELEGATION_TEXTS.noText, isError: false };
  return formatChildResult(run, workdir, limits);
}
