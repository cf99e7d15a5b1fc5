import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../../../test/helpers/close-after-each.js';
import { createItemsSchema } from '../../../../test/helpers/postgres-items-schema.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';
import { runLean } from './lean-query.js';

/*
 * LeanQuery (lean-query.ts) against a real PostgreSQL when TROUPE_TEST_DATABASE_URL is set: whatever a statement
 * returns, it reads the same rows as node-postgres's own query does.
 */
const SKIP_REASON =
  'LeanQuery: skipped because TROUPE_TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5433/postgres)';

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_DATABASE_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describe('LeanQuery on PostgreSQL', () => {
    const closeLater = closeAfterEach();

    async function open() {
      const { schema, admin, drop } = await createItemsSchema(url);
      const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
      await client.connect();
      closeLater({
        close: async () => {
          await client.end();
          await drop();
        },
      });
      return { client, admin, schema };
    }

    const MIXED = `select $1::int as n, $2::bigint as big, $3::boolean as flag, $4::jsonb as doc,
      $5::timestamptz as at, $6::text as missing, array['a', 'b']::text[] as list, $7::text as "__proto__"`;
    const MIXED_VALUES = [
      7,
      '9007199254740993',
      true,
      JSON.stringify({ a: [1, null] }),
      '2026-12-07T08:00:00Z',
      null,
      'x',
    ];

    it('reads every column type as node-postgres does, named or not, the first time and every time after', async () => {
      const { client } = await open();
      const expected = (await client.query({ text: MIXED, values: MIXED_VALUES })).rows;
      expect(expected).toHaveLength(1);
      for (const name of [undefined, 'trp_lean_mixed', 'trp_lean_mixed']) {
        const result = await runLean(client, MIXED, MIXED_VALUES, name);
        expect(result.rows).toEqual(expected);
        // A column named `__proto__` is a column, not the row's prototype.
        expect(Object.getOwnPropertyDescriptor(result.rows[0], '__proto__')?.value).toBe('x');
        expect(result.fields.map((field) => field.name)).toEqual(Object.keys(expected[0] as object));
      }
    });

    it('reports affected rows and commands, and many rows in order', async () => {
      const { client } = await open();
      const inserted = await runLean(
        client,
        'insert into items select g, $1 || g from generate_series(2, 201) g',
        ['label '],
        'trp_lean_insert',
      );
      expect(inserted.command).toBe('INSERT');
      expect(inserted.rowCount).toBe(200);
      const read = await runLean(
        client,
        'select * from items where id > $1 order by id',
        [0],
        'trp_lean_all',
      );
      expect(read.rows).toEqual((await client.query('select * from items where id > 0 order by id')).rows);
      expect(read.rows).toHaveLength(201);
      const updated = await runLean(
        client,
        'update items set label = $1 where id = $2',
        ['two', 2],
        undefined,
      );
      expect([updated.command, updated.rowCount, updated.rows]).toEqual(['UPDATE', 1, []]);
    });

    it('reads the new columns of a statement whose table changed under its name', async () => {
      const { client, admin, schema } = await open();
      const text = 'select * from items where id = $1';
      expect((await runLean(client, text, [1], 'trp_lean_star')).rows).toEqual([{ id: 1, label: 'one' }]);
      await admin.query(`alter table "${schema}".items add column extra int default 5`);
      // The session's plan is stale now: PostgreSQL refuses it (the driver prepares it again, statement-names.ts).
      await expect(runLean(client, text, [1], 'trp_lean_star')).rejects.toMatchObject({ code: '0A000' });
      await client.query('deallocate trp_lean_star');
      delete (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection
        .parsedStatements.trp_lean_star;
      // The same name now describes three columns: the kept shape is not reused.
      expect((await runLean(client, text, [1], 'trp_lean_star')).rows).toEqual([
        { id: 1, label: 'one', extra: 5 },
      ]);
    });

    it('fails a statement with the server error and leaves the session usable', async () => {
      const { client } = await open();
      await expect(runLean(client, 'select 1 / $1::int as x', [0], 'trp_lean_divide')).rejects.toMatchObject({
        code: '22012',
      });
      expect((await runLean(client, 'select 1 / $1::int as x', [1], 'trp_lean_divide')).rows).toEqual([
        { x: 1 },
      ]);
    });

    it('answers each statement of a simple multi-statement text', async () => {
      const { client } = await open();
      const result = (await runLean(client, 'select 1 as a; select 2 as b', [], undefined)) as unknown as {
        rows: unknown[];
      }[];
      expect(result.map((part) => part.rows)).toEqual([[{ a: 1 }], [{ b: 2 }]]);
    });
  });
}
