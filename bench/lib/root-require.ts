import { createRequire } from 'node:module';
import path from 'node:path';

/** Where `npm run bench` compiles the bench and the server before running them (`bench-build.ts`). */
export const BENCH_BUILD_NAME = '.bench-build';

/** The tree this module runs in: the repository, or the compiled bench one folder deeper. */
const TREE = path.resolve(import.meta.dirname, '../..');

/** Whether the bench runs from its compiled copy (`bench-build.ts`). */
export const RUNNING_COMPILED = path.basename(TREE) === BENCH_BUILD_NAME;

/** The repository root (the folder holding the server's package.json), from either tree. */
export const REPO_DIR = RUNNING_COMPILED ? path.dirname(TREE) : TREE;

/**
 * `require` anchored at the repository root, so `better-sqlite3` is the server's own (compiled) copy and not
 * the uncompiled one that `bench/node_modules` may hold as a dependency of the LangGraph SQLite saver.
 */
export const rootRequire = createRequire(path.join(REPO_DIR, 'package.json'));
