import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A schema of a test's own on a shared PostgreSQL, holding `items(id int primary key, label text)` = (1, 'one'). */
export interface ItemsSchema {
  schema: string;
  /** A connection of its own, outside the pool a test watches: for looking and for killing. */
  admin: pg.Client;
  /** Drops the schema and closes `admin`. */
  drop: () => Promise<void>;
}

export async function createItemsSchema(url: string): Promise<ItemsSchema> {
  const schema = `troupe_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.query(`CREATE TABLE "${schema}".items (id int primary key, label text)`);
  await admin.query(`INSERT INTO "${schema}".items VALUES (1, 'one')`);
  return {
    schema,
    admin,
    drop: async () => {
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.end();
    },
  };
}
