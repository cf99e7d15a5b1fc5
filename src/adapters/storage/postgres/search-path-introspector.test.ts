import { Kysely } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../../../test/helpers/close-after-each.js';
import { createItemsSchema } from '../../../../test/helpers/postgres-items-schema.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';
import { resilientPostgresDialect } from './postgres-driver.js';

/* The dialect's introspector (search-path-introspector.ts) against a real PostgreSQL. */
const SKIP_REASON =
  'PostgreSQL search-path introspector: skipped because TROUPE_TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5433/postgres)';

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_DATABASE_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;

  describe('the search-path introspector', () => {
    const closeLater = closeAfterEach();

    /** A schema holding `items`, and a Kysely whose sessions have only that schema on their search path. */
    async function open() {
      const items = await createItemsSchema(url);
      const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${items.schema}` });
      const db = new Kysely<unknown>({ dialect: resilientPostgresDialect(pool) });
      closeLater({
        close: async () => {
          await db.destroy();
          await items.drop();
        },
      });
      return { ...items, db };
    }

    it("lists the search path's tables with their columns, and no other schema's", async () => {
      const other = await createItemsSchema(url);
      closeLater({ close: other.drop });
      const { db, schema } = await open();
      const tables = await db.introspection.getTables();
      expect(tables).toEqual([
        {
          name: 'items',
          schema,
          isView: false,
          columns: [
            {
              name: 'id',
              dataType: 'int4',
              dataTypeSchema: 'pg_catalog',
              isNullable: false,
              hasDefaultValue: false,
              isAutoIncrementing: false,
            },
            {
              name: 'label',
              dataType: 'text',
              dataTypeSchema: 'pg_catalog',
              isNullable: true,
              hasDefaultValue: false,
              isAutoIncrementing: false,
            },
          ],
        },
      ]);
    });

    it("leaves Kysely's default bookkeeping tables out unless asked for them", async () => {
      const { db, admin, schema } = await open();
      await admin.query(`CREATE TABLE "${schema}".kysely_migration (name text primary key)`);
      const names = async (withInternalKyselyTables: boolean) =>
        (await db.introspection.getTables({ withInternalKyselyTables })).map((table) => table.name);
      expect(await names(false)).toEqual(['items']);
      expect(await names(true)).toEqual(['items', 'kysely_migration']);
    });
  });
}
