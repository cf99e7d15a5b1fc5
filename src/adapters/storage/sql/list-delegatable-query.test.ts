import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewAgent, Storage } from '../../../core/ports/storage.js';
import { createSqlStorage } from './create-sql-storage.js';
import type { DatabaseSchema } from './database-schema.js';
import { migrateToLatest } from './migrations.js';
import { sqliteSqlDialect } from './sql-dialect.js';

/*
 * docs/delegation.md asks for the four delegation conditions in ONE query. The contract suite proves the answers;
 * this proves the shape: a single SELECT, carrying every condition, the access check and the coalesce.
 */
let storage: Storage;
let statements: string[] = [];

beforeEach(async () => {
  const db = new Kysely<DatabaseSchema>({
    dialect: new SqliteDialect({ database: new Database(':memory:') }),
    log: (event) => {
      if (event.level === 'query') statements.push(event.query.sql);
    },
  });
  await migrateToLatest(db);
  storage = createSqlStorage(db, sqliteSqlDialect);
});
afterEach(async () => storage.close());

function expert(ownerId: string, slug: string, extra: Partial<NewAgent> = {}): NewAgent {
  return {
    slug,
    name: slug,
    description: '',
    backend: 'chat',
    is_subagent: false,
    owner_id: ownerId,
    visibility: 'private',
    config: {},
    status: 'published',
    delegatable: true,
    delegation_brief: null,
    is_default: false,
    ...extra,
  };
}

describe('agents.listDelegatable', () => {
  it('is one statement enforcing access, delegatable, published and not deleted', async () => {
    const owner = await storage.users.create({ name: 'owner', role: 'member' });
    const member = await storage.users.create({ name: 'member', role: 'member' });
    const granted = await storage.agents.create(expert(owner.id, 'granted'));
    await storage.agents.create(expert(owner.id, 'hidden'));
    await storage.access.grant(member.id, granted.id, 'granted');

    statements = [];
    const found = await storage.agents.listDelegatable(member, {
      slugs: ['granted', 'hidden'],
      exclude_id: 'agt_self',
    });
    expect(found.map((entry) => entry.agent.slug)).toEqual(['granted']);
    expect(statements).toHaveLength(1);
    const sql = statements[0] ?? '';
    expect(sql).toMatch(/^select /);
    for (const fragment of [
      '"agents"."delegatable" = ?',
      '"agents"."status" = ?',
      '"agents"."deleted_at" is null',
      '"agents"."is_subagent" = ?',
      '"agents"."id" <> ?',
      'exists (select',
      '"agent_access"."user_id" = ?',
      '"agents"."visibility" = \'public\'',
      'coalesce("agents"."delegation_brief", "agents"."description", ?)',
    ]) {
      expect(sql).toContain(fragment);
    }
  });
});
