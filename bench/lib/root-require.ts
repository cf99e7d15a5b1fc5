import { createRequire } from 'node:module';
import path from 'node:path';

/** The repository root (the folder holding the server's package.json). */
export const REPO_DIR = path.resolve(import.meta.dirname, '../..');

/**
 * `require` anchored at the repository root, so `better-sqlite3` is the server's own (compiled) copy and not
 * the uncompiled one that `bench/node_modules` may hold as a dependency of the LangGraph SQLite saver.
 */
export const rootRequire = createRequire(path.join(REPO_DIR, 'package.json'));
