import type { Run } from '../../core/records/run.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import { keepResultInWorkdir, type KeepLimits } from '../tool-results/keep-result-in-workdir.js';

/**
 * The text a parent receives for a finished child: its output, or for a failed/cancelled child its
 * error with the status (never passed off as success). Over the child result cap (bytes) or the tool result
 * limit (tokens), it is kept in a workdir file like any big tool result (docs/model-calls.md#big-tool-results).
 */
export async function formatChildResult(
  run: Run,
  workdir: string,
  limits: Required<Pick<KeepLimits, 'maxBytes'>> & KeepLimits,
): Promise<{ text: string; isError: boolean }> {
  const keep = (text: string) => keepResultInWorkdir(text, { ...limits, workdir, id: run.id });
  if (run.status !== 'completed') {
    const message = run.error?.message ?? 'no error message';
    const partial = run.output?.trim() ? `\n\nPartial output:\n${run.output.trim()}` : '';
    return { text: await keep(SUBAGENT_TEXTS.runEnded(run.status, message) + partial), isError: true };
  }
  const output = run.output?.trim() ?? '';
  return { text: await keep(output === '' ? SUBAGENT_TEXTS.noText : output), isError: false };
}
