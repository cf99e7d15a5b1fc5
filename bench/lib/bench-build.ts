import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { BENCH_BUILD_NAME, REPO_DIR } from './root-require.js';

/** The compiled bench and server: `<repo>/.bench-build/{src,bench,test}`, mirroring the repository. */
export const BENCH_BUILD_DIR = path.join(REPO_DIR, BENCH_BUILD_NAME);

const TSC = path.join(REPO_DIR, 'node_modules', 'typescript', 'bin', 'tsc');

/**
 * Compiles the server with the bench (`bench/tsconfig.build.json`, plain `tsc`), so the suites measure the
 * JavaScript `npm start` runs (`node dist/main.js`) and not `tsx`'s on-the-fly transform, whose kept function
 * names cost every closure an `Object.defineProperty`. The folders the compiled code reaches beside itself
 * (the bench's own dependencies, the demo data, the console) are links to the repository's.
 */
export function buildBench(): void {
  rmSync(BENCH_BUILD_DIR, { recursive: true, force: true });
  execFileSync(process.execPath, [TSC, '-p', path.join(REPO_DIR, 'bench', 'tsconfig.build.json')], {
    cwd: REPO_DIR,
    stdio: 'inherit',
  });
  const link = (target: string, at: string) =>
    symlinkSync(path.join(REPO_DIR, target), path.join(BENCH_BUILD_DIR, at), 'dir');
  link('bench/node_modules', 'bench/node_modules');
  link('demo', 'demo');
  link('web', 'web');
}
