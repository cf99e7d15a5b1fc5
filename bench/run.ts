/**
 * `npm run bench`: installs the bench-only dependencies when needed (bench/package.json: deepagents,
 * LangGraph savers, autocannon), compiles the server and the bench with tsc (`.bench-build/`, as `npm start`
 * runs the compiled server), runs each suite in a process of its own, prints a table and writes
 * `bench/results/<date>-<commit>.json` with the machine facts.
 *
 *   npm run bench                        # everything (~6–9 min on 2 cores; scale-out alone ~3.5)
 *   npm run bench -- --only dispatch     # one or more suites: dispatch, cost, fanout, http, knowledge,
 *                                        # cancel, providers, scale-out, console
 *   npm run bench -- --quick             # tiny sample counts, a smoke test of the bench (results to a temp dir)
 *
 * A suite that cannot run on this machine (scale-out without PostgreSQL and Redis binaries) is skipped with
 * its reason printed and recorded in the JSON.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildBench } from './lib/bench-build.js';
import { exited, spawnBenchScript } from './lib/child.js';
import { machineInfo } from './lib/machine.js';
import { REPO_DIR } from './lib/root-require.js';
import { printSuiteResults } from './lib/print-suite-results.js';
import { round } from './lib/stats.js';
import {
  needsBenchDependencies,
  selectSuites,
  SUITES,
  unavailableReason,
  type SuiteName,
} from './lib/suite-registry.js';

const BENCH_DIR = path.join(REPO_DIR, 'bench');

/** `npm ci` into bench/node_modules when it is missing or older than bench/package-lock.json. */
function ensureBenchDependencies(): void {
  const installed = path.join(BENCH_DIR, 'node_modules', '.package-lock.json');
  const lock = path.join(BENCH_DIR, 'package-lock.json');
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) return;
  process.stderr.write('[bench] installing bench dependencies (npm --prefix bench ci)…\n');
  // --ignore-scripts: the LangGraph SQLite saver depends on better-sqlite3, whose install script would compile
  // a second copy; the bench hands the saver the server's compiled one instead.
  execFileSync('npm', ['--prefix', BENCH_DIR, 'ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
    stdio: 'inherit',
    cwd: REPO_DIR,
  });
}

async function runSuiteProcess(name: SuiteName, outDir: string, quick: boolean): Promise<unknown> {
  const out = path.join(outDir, `${name}.json`);
  const started = performance.now();
  process.stderr.write(`[bench] ${name}…\n`);
  const child = spawnBenchScript(
    `suites/${name}.ts`,
    ['--out', out, ...(quick ? ['--quick'] : [])],
    ['--expose-gc'],
    'inherit',
    true,
  );
  const code = await exited(child);
  if (code !== 0) throw new Error(`suite ${name} exited with ${code}`);
  process.stderr.write(`[bench] ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return JSON.parse(readFileSync(out, 'utf8')) as unknown;
}

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } },
});
const quick = values.quick;
const selected = selectSuites(values.only);

// Suites that compare with deepagents or drive autocannon need bench/package.json installed; the others not.
if (selected.some(needsBenchDependencies)) ensureBenchDependencies();
process.stderr.write('[bench] compiling the server and the bench (tsc)…\n');
buildBench();
const machine = machineInfo(REPO_DIR);
const started = performance.now();
const scratch = mkdtempSync(path.join(os.tmpdir(), 'troupe-bench-run-'));
const suites: Partial<Record<SuiteName, unknown>> = {};
const skipped: Partial<Record<SuiteName, string>> = {};
for (const name of selected) {
  const reason = unavailableReason(name);
  if (reason === undefined) suites[name] = await runSuiteProcess(name, scratch, quick);
  else {
    skipped[name] = reason;
    process.stderr.write(`[bench] ${name} skipped: ${reason}\n`);
  }
}
const durationS = round((performance.now() - started) / 1000);

console.log(
  `\nTroupe bench — ${machine.date} — commit ${machine.git_commit?.slice(0, 12) ?? 'unknown'}${machine.git_dirty ? ' (+ uncommitted changes)' : ''}`,
);
console.log(
  `${machine.cpu_model}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}, load average ${machine.load_average.join(' / ')}`,
);
printSuiteResults(suites);
for (const [name, reason] of Object.entries(skipped)) console.log(`\n${name}: skipped (${reason})`);

const report = {
  machine,
  load_average_after: os.loadavg().map((value) => Math.round(value * 100) / 100),
  quick,
  duration_s: durationS,
  command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  suites,
  skipped,
};
const resultsDir = quick ? scratch : path.join(BENCH_DIR, 'results');
mkdirSync(resultsDir, { recursive: true });
const stamp = machine.date.slice(0, 16).replace(/:/g, '-');
const file = path.join(
  resultsDir,
  `${stamp}-${machine.git_commit?.slice(0, 8) ?? 'nogit'}${selected.length < SUITES.length ? `-${selected.join('+')}` : ''}.json`,
);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
console.log(
  `\nDone in ${durationS} s. Results: ${path.relative(REPO_DIR, file).startsWith('..') ? file : path.relative(REPO_DIR, file)}`,
);
