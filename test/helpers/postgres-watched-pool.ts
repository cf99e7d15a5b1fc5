import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import {
  listenToEveryClient,
  resilientPostgresDialect,
  type ResilientPostgresDialect,
} from '../../src/adapters/storage/postgres/postgres-driver.js';
import type { Closable } from './close-after-each.js';
import { createItemsSchema } from './postgres-items-schema.js';

export interface Items {
  items: { id: number; label: string };
}

/**
 * A schema of its own (`items` = (1, 'one')) behind a pool of one pipelining connection, as createPostgresStorage
 * configures it, whose socket is watched: `traffic` lists each flush it wrote (`> ` and the text) and each read
 * (`<`), in order, so a test sees which statements left before the first answer.
 */
export async function openWatchedPool(url: string, closeLater: (opened: Closable) => void) {
  const { schema, admin, drop } = await createItemsSchema(url);
  const application = `troupe_pipe_${randomBytes(4).toString('hex')}`;
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    pipeline: true,
    application_name: application,
    options: `-c search_path=${schema}`,
  });
  // The connection's death, as the storage hears of it (createPostgresStorage listens the same way).
  const died = new Promise<void>((resolve) => listenToEveryClient(pool, () => resolve()));
  // What each flush of the pooled connection's socket carried, as text: a corked socket flushes once.
  const flushes: string[] = [];
  const traffic: string[] = [];
  const wrote = (text: string) => {
    flushes.push(text);
    traffic.push(`> ${text}`);
  };
  pool.on('connect', (client) => {
    const stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
    const writev = stream._writev?.bind(stream);
    const write = stream._write.bind(stream);
    stream._writev = (chunks, callback) => {
      wrote(chunks.map(({ chunk }) => Buffer.from(chunk as Buffer).toString('latin1')).join(''));
      writev?.(chunks, callback);
    };
    stream._write = (chunk, encoding, callback) => {
      wrote(Buffer.from(chunk as Buffer).toString('latin1'));
      write(chunk, encoding, callback);
    };
    stream.on('data', () => traffic.push('<'));
  });
  const dialect: ResilientPostgresDialect = resilientPostgresDialect(pool);
  const db = new Kysely<Items>({ dialect });
  closeLater({
    close: async () => {
      await db.destroy();
      await drop();
    },
  });
  // Opens the pool's one connection, so the flushes a test reads are its own.
  await sql`select 1`.execute(db);
  flushes.length = 0;
  traffic.length = 0;
  const labels = async () =>
    (await admin.query<{ id: number }>(`SELECT id FROM "${schema}".items ORDER BY id`)).rows.map(
      (row) => row.id,
    );
  return { db, dialect, admin, application, died, flushes, traffic, labels };
}
