import { createRequire } from 'node:module';
import path from 'node:path';

/** Where `npm run bench` compiles the bench and the server before running them (`bench-build.ts`). */
export const BENCH_BUILD_NAME = '.bench-build';

/**
 * The repository root (the folder holding the server's package.json), whether this module runs from its
 * source or from the compiled bench, one folder deeper.
 */
export const REPO_DIR = ((above: string) =>
  path.basename(above) === BENCH_BUILD_NAME ? path.dirname(above) : above)(
  path.resolve(import.meta.dirname, '../..'),
);

/**
 * `require` anchored at the repository root, so `better-sqlite3` is the server's own (compiled) copy and not
 * the uncompiled one that `bench/node_modules` may hold as a dependency of the LangGraph SQLite saver.
 */
export const rootRequire = createRequire(path.join(REPO_DIR, 'package.json'));
