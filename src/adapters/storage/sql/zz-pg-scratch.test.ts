// TEMPORARY scratch verification against a local PostgreSQL; deleted before hand-off.
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { describeStorageContract } from '../storage.contract.js';
import { createSqlStorage } from './create-sql-storage.js';
import type { DatabaseSchema } from './database-schema.js';
import { migrateToLatest } from './migrations.js';
import { postgresSqlDialect } from './sql-dialect.js';

const url = 'postgres://postgres@127.0.0.1:55432/postgres';
describeStorageContract('postgres (scratch)', async () => {
  const schema = `t_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 10 });
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  const applied = await migrateToLatest(db, { migrationTableSchema: schema });
  const again = await migrateToLatest(db, { migrationTableSchema: schema });
  if (applied.length !== 1 || again.length !== 0) throw new Error(`migrations ${applied} ${again}`);
  const storage = createSqlStorage(db, postgresSqlDialect);
  return {
    storage,
    async close() {
      await storage.close();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
});
