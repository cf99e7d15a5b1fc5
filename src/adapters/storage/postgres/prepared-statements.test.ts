import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../../../test/helpers/close-after-each.js';
import { TroupeError } from '../../../core/errors.js';
import { createItemsSchema } from '../../../../test/helpers/postgres-items-schema.js';
import { resilientPostgresDialect } from './postgres-driver.js';
import { StatementNames } from './statement-names.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';

/*
 * Server-side prepared statements (statement-names.ts) against a real PostgreSQL when TROUPE_TEST_DATABASE_URL
 * is set: each test works in a schema of its own on a pool of one connection, so the session it inspects is
 * the one its statements ran on.
 */
const SKIP_REASON =
  'PostgreSQL prepared statements: skipped because TROUPE_TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5433/postgres)';

describe('StatementNames', () => {
  it('names a text from its second use on, the same way every time, apart from any other text', () => {
    const names = new StatementNames(10);
    expect(names.nameOf('select 1')).toBeUndefined();
    const one = names.nameOf('select 1');
    expect(one).toMatch(/^trp_[0-9a-f]{16}$/);
    expect(names.nameOf('select 1')).toBe(one);
    const other = new StatementNames(10);
    other.nameOf('select 1');
    expect(other.nameOf('select 1')).toBe(one);
    names.nameOf('select 2');
    expect(names.nameOf('select 2')).not.toBe(one);
  });
});

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_DATABASE_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describe('prepared statements on PostgreSQL', () => {
    const closeLater = closeAfterEach();

    /** A Kysely on one connection in a fresh schema holding `items(id int, label text)`. */
    async function open(names: StatementNames | undefined) {
      const { schema, admin, drop } = await createItemsSchema(url);
      const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
      const db = new Kysely<{ items: { id: number; label: string } }>({
        dialect: resilientPostgresDialect(pool, names),
      });
      closeLater({
        close: async () => {
          await db.destroy();
          await drop();
        },
      });
      const prepared = async () =>
        (
          await sql<{
            name: string;
          }>`select name from pg_prepared_statements where name like 'trp_%'`.execute(db)
        ).rows.map((row) => row.name);
      const selectOne = () => db.selectFrom('items').selectAll().where('id', '=', 1).execute();
      return { db, admin, schema, prepared, selectOne };
    }

    it('prepares a statement on its second use and runs it by name afterwards', async () => {
      const names = new StatementNames(100);
      const { prepared, selectOne } = await open(names);
      expect(await selectOne()).toEqual([{ id: 1, label: 'one' }]);
      expect(await prepared()).toEqual([]);
      expect(await selectOne()).toEqual([{ id: 1, label: 'one' }]);
      expect(await selectOne()).toEqual([{ id: 1, label: 'one' }]);
      // (The look into pg_prepared_statements is a statement of this connection too, named from its second use.)
      expect(await prepared()).toContain(names.nameOf('select * from "items" where "id" = $1'));
    });

    it('keeps at most its bound of statements on a connection, dropping the least recently used', async () => {
      const names = new StatementNames(2);
      const { db, prepared } = await open(names);
      const byId = (id: number) => db.selectFrom('items').select('label').where('id', '=', id).execute();
      const byLabel = (label: string) =>
        db.selectFrom('items').select('id').where('label', '=', label).execute();
      const both = () =>
        db.selectFrom('items').selectAll().where('id', '=', 1).where('label', '=', 'one').execute();
      for (let round = 0; round < 3; round += 1) {
        expect(await byId(1)).toEqual([{ label: 'one' }]);
        expect(await byLabel('one')).toEqual([{ id: 1 }]);
        expect(await both()).toEqual([{ id: 1, label: 'one' }]);
        expect((await prepared()).length).toBeLessThanOrEqual(2);
      }
    });

    it('prepares nothing when turned off', async () => {
      const { prepared, selectOne } = await open(undefined);
      await selectOne();
      await selectOne();
      expect(await prepared()).toEqual([]);
    });

    it('runs a statement whose result changed shape again outside a transaction (a migration added a column)', async () => {
      const { admin, schema, selectOne } = await open(new StatementNames(100));
      await selectOne();
      await selectOne();
      await admin.query(`ALTER TABLE "${schema}".items ADD COLUMN extra int DEFAULT 7`);
      // PostgreSQL refuses the cached plan (0A000); the driver prepares the statement afresh and runs it once more.
      expect(await selectOne()).toEqual([{ id: 1, label: 'one', extra: 7 }]);
      expect(await selectOne()).toEqual([{ id: 1, label: 'one', extra: 7 }]);
    });

    it('fails a transaction that met a changed statement as storage_unavailable, and the retry succeeds', async () => {
      const { db, admin, schema, selectOne } = await open(new StatementNames(100));
      await selectOne();
      await selectOne();
      await admin.query(`ALTER TABLE "${schema}".items ADD COLUMN extra int DEFAULT 7`);
      const inTransaction = () =>
        db.transaction().execute(async (tx) => {
          await tx.insertInto('items').values({ id: 2, label: 'two' }).execute();
          return tx.selectFrom('items').selectAll().where('id', '=', 1).execute();
        });
      const error = await inTransaction().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(TroupeError);
      expect((error as TroupeError).code).toBe('storage_unavailable');
      // The aborted transaction wrote nothing; the connection it broke was replaced.
      expect((await admin.query(`SELECT count(*)::int AS n FROM "${schema}".items`)).rows[0]).toEqual({
        n: 1,
      });
      expect(await inTransaction()).toEqual([{ id: 1, label: 'one', extra: 7 }]);
    });
  });
}
