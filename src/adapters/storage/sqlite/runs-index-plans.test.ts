import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../../core/ports/storage.js';
import { createSqliteStorage } from './create-sqlite-storage.js';

type StatementMethod = (this: Database.Statement, ...args: unknown[]) => unknown;

/*
 * The partial indexes of `runs` (migrations 0009 and 0011) serve their queries only when SQLite can prove a query's
 * WHERE implies the index's, and the dropped lease index leaves its query to another: these plans are read
 * from the statements the repository really sends.
 */
let dir: string;
let storage: Storage;
let inspect: Database.Database;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'troupe-plans-'));
  storage = await createSqliteStorage({ filename: path.join(dir, 'troupe.db') });
  inspect = new Database(path.join(dir, 'troupe.db'), { readonly: true });
});
afterAll(async () => {
  inspect.close();
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

/** The SQL and parameters of every statement `work` executes. */
async function statementsOf(work: () => Promise<unknown>): Promise<{ sql: string; params: unknown[] }[]> {
  const proto = Object.getPrototypeOf(inspect.prepare('select 1')) as Record<string, StatementMethod>;
  const seen: { sql: string; params: unknown[] }[] = [];
  const originals = new Map<string, StatementMethod>();
  for (const name of ['all', 'get', 'run']) {
    const original = proto[name] as StatementMethod;
    originals.set(name, original);
    proto[name] = function (this: Database.Statement, ...args: unknown[]) {
      seen.push({ sql: this.source, params: args });
      return original.apply(this, args);
    };
  }
  try {
    await work();
  } finally {
    for (const [name, original] of originals) proto[name] = original;
  }
  return seen;
}

async function planOf(work: () => Promise<unknown>): Promise<string> {
  const [statement] = (await statementsOf(work)).filter((entry) => /from "?runs"?\s/i.test(entry.sql));
  if (statement === undefined) throw new Error('no statement on runs');
  const rows = inspect.prepare(`explain query plan ${statement.sql}`).all(...statement.params) as {
    detail: string;
  }[];
  return rows.map((row) => row.detail).join(' | ');
}

describe('runs index plans (SQLite)', () => {
  it('children of a run use runs_created_by_idx', async () => {
    expect(await planOf(() => storage.runs.listChildren('run-x'))).toContain('runs_created_by_idx');
  });

  it('the active runs below a run are walked through runs_created_by_idx at every level, rows by key', async () => {
    const plan = await planOf(() => storage.runs.listActiveDescendants('run-x'));
    expect(plan.match(/runs_created_by_idx/g)).toHaveLength(2);
    expect(plan).not.toMatch(/SCAN runs\b/);
  });

  it("what a turn's end closes is found by the conversation index, then walked through runs_created_by_idx", async () => {
    const turn = { id: 'run-x', conversation_id: 'cnv-x', created_at: '2030-01-01T00:00:00.000Z' };
    const plan = await planOf(() => storage.runs.listActiveBelowTurn(turn, { own: true }));
    expect(plan.match(/runs_created_by_idx/g)?.length).toBeGreaterThanOrEqual(3);
    expect(plan).not.toMatch(/SCAN runs\b/);
  });

  it("a start's two child quotas, read in one statement, each read by an index, and its joins by their keys", async () => {
    const plan = await planOf(() =>
      storage.runs.getWithActiveChildren('run-x', 'usr-x', { agentId: 'agt-x', childThreadId: 'thr-x' }),
    );
    expect(plan).toContain('runs_created_by_idx');
    // The user's count reads the index alone, never a row.
    expect(plan).toContain('USING COVERING INDEX runs_user_active_children_idx');
    expect(plan).toContain('subagent_threads USING INDEX subagent_threads_child_thread_uq');
    // Every other table is a primary-key look-up; only the lineage walk's own rows are scanned.
    expect(plan).not.toMatch(/SCAN (runs|parent|conversations|projects|users|agents|subagent_threads)\b/);
  });

  it("a conversation's children: its runs by runs_conversation_idx, each one's children by runs_created_by_idx", async () => {
    const plan = await planOf(() => storage.runs.listChildrenInConversation('cnv-x'));
    expect(plan).toContain('runs_conversation_idx');
    expect(plan).toContain('runs_created_by_idx');
    expect(plan).not.toMatch(/SCAN (parent|child|runs)\b/);
  });

  it('the latest events of many runs are a range of run_events_run_seq_uq per run, past its last seq', async () => {
    const [statement] = await statementsOf(() => storage.events.listLatest(['run-x', 'run-y'], 200));
    if (statement === undefined) throw new Error('no statement');
    const plan = (
      inspect.prepare(`explain query plan ${statement.sql}`).all(...statement.params) as { detail: string }[]
    )
      .map((row) => row.detail)
      .join(' | ');
    // A range of the index per run, not every event of the run with the bound tested row by row.
    expect(plan).toContain('run_events_run_seq_uq (run_id=? AND seq>?)');
    expect(plan).not.toMatch(/SCAN (e|m|run_events)\b/);
  });

  it('a tree reads its members by runs_root_idx and its root by primary key', async () => {
    const plan = await planOf(() => storage.runs.listByRoot('run-x'));
    expect(plan).toContain('runs_root_idx');
    expect(plan).toContain('sqlite_autoindex_runs_1');
  });

  it('the reconciler reads leased and stale pending runs through the partial runs_active_status_idx', async () => {
    for (const read of [
      () => storage.runs.listExpiredLeases('2030-01-01T00:00:00.000Z', 10),
      () => storage.runs.listStalePending('2030-01-01T00:00:00.000Z', 10),
    ]) {
      const plan = await planOf(read);
      expect(plan).toContain('runs_active_status_idx');
      expect(plan).not.toMatch(/SCAN runs\b/);
    }
  });
});
