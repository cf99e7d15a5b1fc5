import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { withStatementCache } from './cached-statements.js';

describe('withStatementCache', () => {
  const open: Database.Database[] = [];
  afterEach(() => {
    for (const database of open.splice(0)) database.close();
  });

  function database(): Database.Database {
    const created = new Database(':memory:');
    open.push(created);
    created.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, "odd ""name""" TEXT, n INTEGER, missing TEXT)`);
    return created;
  }

  it('reads rows with the same keys and values as better-sqlite3 does', () => {
    const raw = database();
    const cached = withStatementCache(raw);
    cached.prepare('INSERT INTO t VALUES (?, ?, ?, NULL)').run(['a', 'x', 1]);
    cached.prepare('INSERT INTO t VALUES (?, ?, ?, NULL)').run(['b', 'y', 2]);
    const select = 'SELECT * FROM t ORDER BY id';
    expect(cached.prepare(select).all([])).toEqual(raw.prepare(select).all());
    expect(cached.prepare('SELECT id, n AS id FROM t WHERE id = ?').all(['a'])).toEqual([{ id: 1 }]);
    expect([...cached.prepare(select).iterate([])]).toEqual(raw.prepare(select).all());
  });

  it('returns RETURNING rows of writes and reuses one statement per SQL text', () => {
    const cached = withStatementCache(database());
    const insert = 'INSERT INTO t (id, n) VALUES (?, ?) RETURNING id, n';
    expect(cached.prepare(insert).all(['c', 3])).toEqual([{ id: 'c', n: 3 }]);
    expect(cached.prepare(insert)).toBe(cached.prepare(insert));
    const write = cached.prepare('UPDATE t SET n = n + 1');
    expect(write.reader).toBe(false);
    expect(write.run([]).changes).toBe(1);
  });
});
