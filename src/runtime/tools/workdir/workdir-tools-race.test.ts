import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTroupeError } from '../../../core/errors.js';
import type { AnyTroupeTool } from '../../../core/tools/troupe-tool.js';
import { editFileTool } from './edit-file-tool.js';
import { globTool } from './glob-tool.js';
import { grepTool } from './grep-tool.js';
import { lsTool } from './ls-tool.js';
import { readFileTool } from './read-file-tool.js';
import { createTempWorkdir, type TempWorkdir } from '../../../../test/helpers/workdir/create-temp-workdir.js';
import { makeToolContext } from '../../../../test/helpers/workdir/make-tool-context.js';
import { runTool } from '../../../../test/helpers/workdir/run-tool.js';
import { writeFileTool } from './write-file-tool.js';

const SWAPPER = path.resolve(import.meta.dirname, '../../../../test/helpers/workdir/symlink-swapper.ts');
/** A model's step may fire this many tool calls at once; the race is run at that width. */
const PARALLEL_CALLS = 40;
/** Bounds of the run: whichever comes first. Neither is asserted on; they only keep the test finite. */
const MAX_ROUNDS = 150;
const TIME_BUDGET_MS = 20_000;

/** Markers only the outside folder holds: any of them in a tool result is an escape. */
const SECRET = 'OUTSIDE-SECRET-7f3a';
const OUTSIDE_ONLY_NAME = 'outside-only-file.txt';

let temp: TempWorkdir;
let swapper: ChildProcess | undefined;

beforeEach(async () => {
  temp = await createTempWorkdir();
  // The same names inside and outside, so a call that slips through the symlink finds something to leak.
  for (const [relative, content] of [
    ['notes.txt', 'inside notes\n'],
    ['edit.txt', 'tick\n'],
    ['sub/deep.txt', 'inside deep\n'],
  ] as const) {
    await temp.write(`d/${relative}`, content);
    await temp.write(`../outside/${relative}`, `${SECRET} ${relative}\n`);
  }
  await temp.write(`../outside/${OUTSIDE_ONLY_NAME}`, `${SECRET}\n`);
});

afterEach(async () => {
  swapper?.kill('SIGKILL');
  swapper = undefined;
  await temp.cleanup();
});

type Snapshot = Record<string, { content: string; mtimeMs: number; ino: number }>;

async function snapshot(root: string, prefix = ''): Promise<Snapshot> {
  const result: Snapshot = {};
  for (const entry of await readdir(path.join(root, prefix), { withFileTypes: true })) {
    const relative = path.join(prefix, entry.name);
    if (entry.isDirectory()) {
      Object.assign(result, await snapshot(root, relative));
      continue;
    }
    const absolute = path.join(root, relative);
    const stats = await stat(absolute);
    result[relative] = { content: await readFile(absolute, 'utf8'), mtimeMs: stats.mtimeMs, ino: stats.ino };
  }
  return result;
}

interface Swapper {
  process: ChildProcess;
  /** Closes its stdin and resolves with the number of swaps it made once the real directory is back. */
  stop(): Promise<number>;
}

function startSwapper(directory: string, outside: string): Promise<Swapper> {
  const child = spawn(process.execPath, ['--import', 'tsx', SWAPPER, directory, outside], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  swapper = child;
  let output = '';
  const exited = new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => {
      const done = /DONE (\d+)/.exec(output);
      if (code === 0 && done) resolve(Number(done[1]));
      else reject(new Error(`swapper exited with ${code}: ${output}`));
    });
  });
  return new Promise((resolve, reject) => {
    exited.catch(reject);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!output.includes('READY')) return;
      resolve({
        process: child,
        stop: () => {
          child.stdin?.end();
          return exited;
        },
      });
    });
  });
}

interface Call {
  tool: AnyTroupeTool;
  input: Record<string, unknown>;
}

/** Forty calls through the swapped directory: every tool, reads and writes, files and nested directories. */
function roundOfCalls(round: number): Call[] {
  const kinds: ((index: number) => Call)[] = [
    () => ({ tool: readFileTool, input: { path: 'd/notes.txt' } }),
    () => ({ tool: readFileTool, input: { path: 'd/sub/deep.txt' } }),
    () => ({ tool: readFileTool, input: { path: 'd/notes.txt', offset: 1, limit: 1 } }),
    () => ({ tool: lsTool, input: { path: 'd' } }),
    () => ({ tool: lsTool, input: { path: 'd/sub' } }),
    () => ({ tool: globTool, input: { pattern: 'd/**/*' } }),
    () => ({ tool: globTool, input: { pattern: '**/*.txt', path: 'd' } }),
    () => ({ tool: grepTool, input: { pattern: 'SECRET|inside', path: 'd' } }),
    () => ({ tool: grepTool, input: { pattern: 'SECRET|inside' } }),
    () => ({ tool: grepTool, input: { pattern: '.', path: 'd/sub/deep.txt' } }),
    () => ({ tool: writeFileTool, input: { path: 'd/notes.txt', content: 'inside notes\n' } }),
    (index) => ({ tool: writeFileTool, input: { path: `d/new-${round}-${index}.txt`, content: 'new\n' } }),
    (index) => ({
      tool: writeFileTool,
      input: { path: `d/sub/made-${round}-${index}/f.txt`, content: 'x\n' },
    }),
    (index) => ({
      tool: editFileTool,
      input:
        index % 2 === 0
          ? { path: 'd/edit.txt', old_string: 'tick', new_string: 'tock' }
          : { path: 'd/edit.txt', old_string: 'tock', new_string: 'tick' },
    }),
  ];
  return Array.from({ length: PARALLEL_CALLS }, (_, index) => {
    const kind = kinds[index % kinds.length];
    if (kind === undefined) throw new Error('unreachable');
    return kind(index);
  });
}

describe('workdir tools racing a directory swapped for a symlink to outside', () => {
  it('never read, list or write outside the workdir', { timeout: 120_000 }, async () => {
    const outsideBefore = await snapshot(temp.outside);
    const context = makeToolContext(temp.workdir);
    const running = await startSwapper(path.join(temp.workdir, 'd'), temp.outside);

    const escapes: string[] = [];
    const outcomes = new Map<string, number>();
    const count = (key: string): void => {
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    };
    const deadline = Date.now() + TIME_BUDGET_MS;
    let rounds = 0;
    while (rounds < MAX_ROUNDS && Date.now() < deadline) {
      const calls = roundOfCalls(rounds);
      const settled = await Promise.allSettled(calls.map((call) => runTool(call.tool, call.input, context)));
      settled.forEach((result, index) => {
        const call = calls[index] as Call;
        if (result.status === 'fulfilled') {
          count(`${call.tool.name}:ok`);
          const shown = JSON.stringify(result.value);
          if (shown.includes(SECRET) || shown.includes(OUTSIDE_ONLY_NAME)) {
            escapes.push(`${call.tool.name} ${JSON.stringify(call.input)} -> ${shown.slice(0, 200)}`);
          }
          return;
        }
        const error: unknown = result.reason;
        count(`${call.tool.name}:${isTroupeError(error) ? error.code : 'thrown'}`);
        const message = error instanceof Error ? error.message : String(error);
        if (message.includes(SECRET)) escapes.push(`${call.tool.name} error leaked: ${message}`);
      });
      rounds += 1;
    }
    const swaps = await running.stop();

    const outsideAfter = await snapshot(temp.outside);
    // eslint-disable-next-line no-console
    console.info(
      `workdir race: ${rounds} rounds x ${PARALLEL_CALLS} calls, ${swaps} swaps, ${escapes.length} escapes`,
      Object.fromEntries([...outcomes].sort()),
    );
    expect(escapes).toEqual([]);
    expect(outsideAfter).toEqual(outsideBefore);
    expect(rounds).toBeGreaterThan(0);
    expect(swaps).toBeGreaterThan(0);
    // The race really reached the tools: some calls were turned away at the symlink, others went through.
    expect([...outcomes.keys()].some((key) => key.endsWith(':ok'))).toBe(true);
  });
});
