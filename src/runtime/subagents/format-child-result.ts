import path from 'node:path';
import type { Run } from '../../core/records/run.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import { openWorkdirDirectory } from '../tools/workdir/open-workdir-directory.js';

/** Where oversized child results are spilled, relative to the shared project workdir (reserved by the server). */
const SPILL_DIR = '.troupe/subagent-results';

/** Where an oversized child result is spilled, relative to the shared project workdir. */
export function spillPath(runId: string): string {
  return path.posix.join(SPILL_DIR, `${runId}.md`);
}

/**
 * The text a parent receives for a finished child: its output, or for a failed/cancelled child its
 * error with the status (never passed off as success). Over the cap, the full text goes to a workdir file.
 */
export async function formatChildResult(
  run: Run,
  workdir: string,
  capBytes: number,
): Promise<{ text: string; isError: boolean }> {
  if (run.status !== 'completed') {
    const message = run.error?.message ?? 'no error message';
    const partial = run.output?.trim() ? `\n\nPartial output:\n${run.output.trim()}` : '';
    return {
      text: await capped(SUBAGENT_TEXTS.runEnded(run.status, message) + partial, run.id, workdir, capBytes),
      isError: true,
    };
  }
  const output = run.output?.trim() ?? '';
  return {
    text: await capped(output === '' ? SUBAGENT_TEXTS.noText : output, run.id, workdir, capBytes),
    isError: false,
  };
}

async function capped(text: string, runId: string, workdir: string, capBytes: number): Promise<string> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= capBytes) return text;
  await spill(workdir, runId, text);
  // Cut on a character boundary: decoding a byte-truncated buffer may end in a replacement char.
  const head = Buffer.from(text, 'utf8')
    .subarray(0, capBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return head + SUBAGENT_TEXTS.resultSpilled(spillPath(runId), bytes);
}

/**
 * The workdir is the tenant's: an `execute` command may have made `.troupe` (or any part of the spill path) a
 * link to anywhere, or planted a link at the result's own name. The spill directory is reclaimed (links and
 * files in its way removed, never followed) and the file replaced by a rename, so the server's write lands in
 * the workdir whatever was planted there. The file stays the server's: read-only inside the sandbox.
 */
async function spill(workdir: string, runId: string, text: string): Promise<void> {
  const directory = await openWorkdirDirectory(workdir, SPILL_DIR, { create: true, reclaim: true });
  try {
    await directory.writeFile(`${runId}.md`, text);
  } finally {
    await directory.close();
  }
}
