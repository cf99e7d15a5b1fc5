/**
 * A hostile neighbour for the workdir race test, run as its own process: it keeps swapping the directory
 * `argv[2]` for a symlink to the outside folder `argv[3]` and back, as fast as it can, so that tool calls
 * racing it see the directory, the symlink and the gaps between them. Prints `READY` after its first full
 * swap, then stops when its stdin closes, leaves the real directory in place and prints `DONE <swaps>`.
 */
import { renameSync, symlinkSync, unlinkSync } from 'node:fs';

const [directory, outside] = process.argv.slice(2);
if (directory === undefined || outside === undefined) {
  process.stderr.write('usage: symlink-swapper DIRECTORY OUTSIDE\n');
  process.exit(2);
}
const away = `${directory}.away`;
/** Swaps per event-loop turn: enough to race hard, few enough to notice stdin closing promptly. */
const BATCH = 25;
/** A forgotten swapper must not outlive its test for long. */
const LIFETIME_MS = 5 * 60 * 1000;

let swaps = 0;
let stray = 0;
let stopping = false;

function codeOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/**
 * A tool that writes while the name is briefly free may create a fresh directory there: move it aside
 * (inside the workdir) so the swap can go on.
 */
function clearName(): void {
  stray += 1;
  renameSync(directory as string, `${directory as string}.stray${stray}`);
}

function retryOnCollision(step: () => void): void {
  for (;;) {
    try {
      step();
      return;
    } catch (error) {
      const code = codeOf(error);
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'EISDIR') throw error;
      clearName();
    }
  }
}

function swapOnce(): void {
  renameSync(directory as string, away);
  retryOnCollision(() => symlinkSync(outside as string, directory as string));
  unlinkSync(directory as string);
  retryOnCollision(() => renameSync(away, directory as string));
  swaps += 1;
}

function loop(): void {
  if (stopping) {
    process.stdout.write(`DONE ${swaps}\n`);
    process.exit(0);
  }
  for (let index = 0; index < BATCH; index += 1) swapOnce();
  setImmediate(loop);
}

swapOnce();
process.stdout.write('READY\n');
process.stdin.on('end', () => {
  stopping = true;
});
process.stdin.resume();
setTimeout(() => {
  stopping = true;
}, LIFETIME_MS).unref();
setImmediate(loop);
