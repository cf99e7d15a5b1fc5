import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Run } from '../../core/records/run.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';

/** Where an oversized child result is spilled, relative to the shared project workdir. */
export function spillPath(runId: string): string {
  return path.posix.join('.troupe', 'subagent-results', `${runId}.md`);
}

/**
 * The text a parent receives for a finished child: its output, or for a failed/cancelled child its
 * error with the status (never passed off as success). Over the cap, the full text goes to a workdir file.
 */
export async function formatChildResult(run: Run, workdir: string, capBytes: number): Promise<{ text: string; isError: boolean }> {
  if (run.status !== 'completed') {
    const message = run.error?.message ?? 'no error message';
    const partial = run.output?.trim() ? `\n\nPartial output:\n${run.output.trim()}` : '';
    return { text: await capped(SUBAGENT_TEXTS.runEnded(run.status, message) + partial, run.id, workdir, capBytes), isError: true };
  }
  const output = run.output?.trim() ?? '';
  return { text: await capped(output === '' ? SUBAGENT_TEXTS.noText : output, run.id, workdir, capBytes), isError: false };
}

async function capped(text: string, runId: string, workdir: string, capBytes: number): Promise<string> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= capBytes) return text;
  const relative = spillPath(runId);
  const absolute = path.join(workdir, relative);
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFile(absolute, text, 'utf8');
  // Cut on a character boundary: decoding a byte-truncated buffer may end in a replacement char.
  const head = Buffer.from(text, 'utf8').subarray(0, capBytes).toString('utf8').replace(/\uFFFD$/, '');
  return head + SUBAGENT_TEXTS.resultSpilled(relative, bytes);
}
