import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../core/clock.js';
import { describeStorageContract } from '../../../../test/contracts/storage/storage.contract.js';
import { seedOneRun } from '../../../../test/contracts/storage/seed-one-run.js';
import { MIGRATIONS } from '../sql/migrations.js';
import { sqliteSqlDialect } from '../sql/sql-dialect.js';
import { FTS5_TOKENIZER } from '../sql/sqlite-query-tokens.js';
import { createSqliteStorage } from './create-sqlite-storage.js';

async function withTempDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'troupe-sqlite-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

describeStorageContract('sqlite (file)', async () => {
  const temp = await withTempDir();
  const storage = await createSqliteStorage({ filename: path.join(temp.dir, 'troupe.db') });
  return {
    storage,
    async close() {
      await storage.close();
      await temp.remove();
    },
  };
});

describe('SQLite storage specifics', () => {
  let temp: { dir: string; remove(): Promise<void> };
  let filename: string;

  beforeEach(async () => {
    temp = await withTempDir();
    filename = path.join(temp.dir, 'nested', 'deeper', 'troupe.db');
  });

  afterEach(async () => {
    await temp.remove();
  });

  function inspect<T>(query: (database: Database.Database) => T): T {
    const database = new Database(filename, { readonly: true, fileMustExist: true });
    try {
      return query(database);
    } finally {
      database.close();
    }
  }

  it('creates the parent directory and turns on WAL', async () => {
    const storage = await createSqliteStorage({ filename });
    try {
      expect((await stat(filename)).isFile()).toBe(true);
      // journal_mode is persistent in the file; a fresh connection sees it.
      expect(inspect((db) => db.pragma('journal_mode', { simple: true }))).toBe('wal');
      await storage.users.create({ name: 'alice', role: 'member' });
      expect((await stat(`${filename}-wal`)).isFile()).toBe(true);
    } finally {
      await storage.close();
    }
  });

  it('tokenizes search words with the tokenizer the full-text index was made with', async () => {
    const storage = await createSqliteStorage({ filename });
    await storage.close();
    const ddl = inspect(
      (db) =>
        (
          db.prepare("SELECT sql FROM sqlite_master WHERE name = 'knowledge_chunks_fts'").get() as {
            sql: string;
          }
        ).sql,
    );
    expect(ddl).toContain(`tokenize='${FTS5_TOKENIZER}'`);
  });

  it('enforces foreign keys', async () => {
    const storage = await createSqliteStorage({ filename });
    try {
      await expect(
        storage.projects.create({ user_id: 'usr_missing', name: 'p', workdir: '/tmp/p' }),
      ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    } finally {
      await storage.close();
    }
  });

  it('keeps data across close and reopen, and migrations are idempotent', async () => {
    const first = await createSqliteStorage({ filename });
    const alice = await first.users.create({ name: 'alice', role: 'member' });
    const agent = await first.agents.create({
      slug: 'helper',
      name: 'helper',
      description: '',
      backend: 'chat',
      is_subagent: false,
      owner_id: alice.id,
      visibility: 'private',
      config: { model: 'scripted:demo' },
      status: 'draft',
      delegatable: true,
      delegation_brief: null,
      is_default: true,
    });
    await first.close();
    await first.close();

    const second = await createSqliteStorage({ filename });
    try {
      expect(await second.users.get(alice.id)).toEqual(alice);
      expect(await second.agents.getDefault()).toEqual(agent);
    } finally {
      await second.close();
    }
    const applied = inspect((db) =>
      db
        .prepare('SELECT name FROM troupe_migration ORDER BY name')
        .all()
        .map((row) => (row as { name: string }).name),
    );
    expect(applied).toEqual(Object.keys(MIGRATIONS).sort());
  });

  it('maps constraint violations to the schema key names after a reopen too', async () => {
    // SQLite reports unique violations by column list; the mapping must not depend on index order,
    // which differs between the connection that created the schema and later ones.
    const first = await createSqliteStorage({ filename });
    await first.close();
    const storage = await createSqliteStorage({ filename });
    try {
      const alice = await storage.users.create({ name: 'alice', role: 'member' });
      await expect(storage.users.create({ name: 'alice', role: 'member' })).rejects.toMatchObject({
        code: 'user_exists',
      });
      expect(alice.name).toBe('alice');
    } finally {
      await storage.close();
    }
  });

  it('stamps records with the injected clock', async () => {
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const clock: Clock = { now: () => new Date(now) };
    const storage = await createSqliteStorage({ filename, clock });
    try {
      const user = await storage.users.create({ name: 'alice', role: 'member' });
      expect(user.created_at).toBe('2030-01-01T00:00:00.000Z');
      now += 1_000;
      const token = await storage.tokens.create({
        user_id: user.id,
        name: 't',
        prefix: 'p',
        token_hash: 'h',
      });
      expect(token.created_at).toBe('2030-01-01T00:00:01.000Z');
    } finally {
      await storage.close();
    }
  });

  it('opens an in-memory database', async () => {
    const storage = await createSqliteStorage({ filename: ':memory:' });
    try {
      const user = await storage.users.create({ name: 'alice', role: 'member' });
      expect(await storage.users.get(user.id)).toEqual(user);
    } finally {
      await storage.close();
    }
  });

  // Throughput is measured by `npm run bench`, never asserted here; this checks the hot path stays gapless at volume.
  it('appends 2 000 concurrent events to one run gaplessly', async () => {
    const storage = await createSqliteStorage({ filename });
    try {
      const { id } = await seedOneRun(storage);
      const count = 2_000;
      await Promise.all(
        Array.from({ length: count }, (_, i) =>
          storage.events.append({ run_id: id, type: 'message_delta', payload: { text: `token ${i}` } }),
        ),
      );
      expect(await storage.events.lastSeq(id)).toBe(count);
      const seqs = (await storage.events.list(id, 0, count + 10)).map((event) => event.seq);
      expect(seqs).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    } finally {
      await storage.close();
    }
  });
});

describe('sqliteSqlDialect.uniqueViolation', () => {
  const violation = (message: string, code = 'SQLITE_CONSTRAINT_UNIQUE') =>
    Object.assign(new Error(message), { code });

  it('names the key from the column list or the index name', () => {
    expect(sqliteSqlDialect.uniqueViolation(violation('UNIQUE constraint failed: runs.thread_id'))).toBe(
      'runs_active_thread_uq',
    );
    expect(
      sqliteSqlDialect.uniqueViolation(violation('UNIQUE constraint failed: runs.user_id, runs.request_id')),
    ).toBe('runs_user_request_id_uq');
    expect(
      sqliteSqlDialect.uniqueViolation(
        violation('UNIQUE constraint failed: run_events.run_id, run_events.seq'),
      ),
    ).toBe('run_events_run_seq_uq');
    expect(
      sqliteSqlDialect.uniqueViolation(
        violation(
          'UNIQUE constraint failed: agent_access.user_id, agent_access.agent_id',
          'SQLITE_CONSTRAINT_PRIMARYKEY',
        ),
      ),
    ).toBe('agent_access_pkey');
    expect(
      sqliteSqlDialect.uniqueViolation(violation("UNIQUE constraint failed: index 'agents_slug_uq'")),
    ).toBe('agents_slug_uq');
  });

  it('ignores other errors', () => {
    expect(
      sqliteSqlDialect.uniqueViolation(
        violation('FOREIGN KEY constraint failed', 'SQLITE_CONSTRAINT_FOREIGNKEY'),
      ),
    ).toBeUndefined();
    expect(
      sqliteSqlDialect.uniqueViolation(violation('UNIQUE constraint failed: other.column')),
    ).toBeUndefined();
    expect(sqliteSqlDialect.uniqueViolation(new Error('boom'))).toBeUndefined();
    expect(sqliteSqlDialect.uniqueViolation('not an error')).toBeUndefined();
  });
});
