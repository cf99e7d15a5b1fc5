import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chunkText } from '../../../core/knowledge/chunk-text.js';
import type { Storage } from '../../../core/ports/storage.js';
import { createSqliteStorage } from '../sqlite/create-sqlite-storage.js';
import { MIGRATIONS } from './migrations.js';

const TEXT = `# Security

## API tokens

Tokens are rotated every ninety days. To rotate a token, create a new one, then revoke the old one.

## Passwords

Every client authenticates with a bearer token.
`;

/** Migrates a fresh file up to `last` only, as a server of that version left it. */
async function migrateTo(filename: string, last: string): Promise<Kysely<unknown>> {
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(filename) }) });
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve({ ...MIGRATIONS }) },
    migrationTableName: 'troupe_migration',
    migrationLockTableName: 'troupe_migration_lock',
  });
  const { error } = await migrator.migrateTo(last);
  if (error !== undefined) throw new Error(`migrating to ${last} failed`, { cause: error });
  return db;
}

function searchRotate(storage: Storage, sourceId: string) {
  return storage.knowledgeDocuments.search({ source_ids: [sourceId], terms: ['rotate', 'token'], limit: 5 });
}

describe('0013_knowledge_scoped_ranking', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'troupe-ranking-migration-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('counts the words of chunks indexed before it, so they rank as if uploaded after it', async () => {
    const older = path.join(dir, 'older.db');
    const db = await migrateTo(older, '0011_lean_indexes');
    const now = new Date().toISOString();
    await sql`INSERT INTO users (id, name, role, delegation_policy, delegation_whitelist, created_at)
      VALUES ('usr_a', 'alice', 'member', 'none', '[]', ${now})`.execute(db);
    await sql`INSERT INTO knowledge_sources (id, name, description, owner_id, visibility, created_at, updated_at)
      VALUES ('kns_00000000000000000001', 'handbook', '', 'usr_a', 'private', ${now}, ${now})`.execute(db);
    const chunks = chunkText(TEXT, { markdown: true });
    await sql`INSERT INTO knowledge_documents
      (id, source_id, name, media_type, bytes, text_chars, page_count, chunk_count, created_at)
      VALUES ('kdc_1', 'kns_00000000000000000001', 'security.md', 'text/markdown', 1, 1, NULL, ${chunks.length}, ${now})`.execute(
      db,
    );
    for (const [seq, chunk] of chunks.entries()) {
      await sql`INSERT INTO knowledge_chunks
        (document_id, source_id, seq, text, heading_path, page, start_offset, end_offset)
        VALUES ('kdc_1', 'kns_00000000000000000001', ${seq}, ${chunk.text}, ${JSON.stringify(chunk.heading_path)},
                NULL, ${chunk.start}, ${chunk.end})`.execute(db);
    }
    await db.destroy();

    const migrated = await createSqliteStorage({ filename: older });
    const fresh = await createSqliteStorage({ filename: path.join(dir, 'fresh.db') });
    try {
      const alice = await fresh.users.create({ name: 'alice', role: 'member' });
      const source = await fresh.knowledgeSources.create({
        name: 'handbook',
        description: '',
        owner_id: alice.id,
        visibility: 'private',
      });
      await fresh.knowledgeDocuments.put(
        {
          source_id: source.id,
          name: 'security.md',
          media_type: 'text/markdown',
          bytes: 1,
          text_chars: 1,
          page_count: null,
        },
        chunks,
      );
      const before = await searchRotate(migrated, 'kns_00000000000000000001');
      const after = await searchRotate(fresh, source.id);
      expect(before.length).toBeGreaterThan(0);
      expect(before.map((hit) => [hit.text, hit.score])).toEqual(after.map((hit) => [hit.text, hit.score]));
    } finally {
      await migrated.close();
      await fresh.close();
    }
  });
});
