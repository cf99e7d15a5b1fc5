import { Migrator } from 'kysely';
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { ACTIVE_RUN_STATUSES } from '../../../core/records/run.js';
import type { DatabaseSchema } from './database-schema.js';
import type { RetiredUniqueConstraintName, UniqueConstraintName } from './unique-constraints.js';
import { knowledgeMigration } from './knowledge-migration.js';
import { budgetMigration } from './budget-migration.js';
import { runsPartialIndexesMigration } from './runs-partial-indexes-migration.js';
import { runsUserQuotaIndexMigration } from './runs-user-quota-index-migration.js';
import { leanIndexesMigration } from './lean-indexes-migration.js';
import { approvalScopeMigration } from './approval-scope-migration.js';
import { knowledgeRankingMigration } from './knowledge-ranking-migration.js';
import { messageUsageMigration } from './message-usage-migration.js';
import { runForksMigration } from './run-forks-migration.js';
import { verificationMigration } from './verification-migration.js';
import { toolCallStartsMigration } from './tool-call-starts-migration.js';
import { sequenceCountersMigration } from './sequence-counters-migration.js';

/*
 * One migration set for SQLite and PostgreSQL: only types and DDL both accept (text, integer, partial
 * indexes, foreign keys declared with the column). Unique keys are created as named indexes so both
 * engines report the same name (see unique-constraints.ts). Migrations are append-only: never edit a
 * shipped one, add the next version.
 */

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

function uniqueIndex(
  db: AnyDb,
  name: UniqueConstraintName | RetiredUniqueConstraintName,
  table: string,
  columns: string[],
) {
  return db.schema.createIndex(name).unique().on(table).columns(columns);
}

function index(db: AnyDb, name: string, table: string, columns: string[]): Promise<void> {
  return db.schema.createIndex(name).on(table).columns(columns).execute();
}

const initialSchema: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('delegation_policy', 'text', (c) => c.notNull())
      .addColumn('delegation_whitelist', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await uniqueIndex(db, 'users_name_uq', 'users', ['name']).execute();

    await db.schema
      .createTable('api_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    await uniqueIndex(db, 'api_tokens_hash_uq', 'api_tokens', ['token_hash']).execute();
    await index(db, 'api_tokens_user_idx', 'api_tokens', ['user_id', 'name']);

    await db.schema
      .createTable('agents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('backend', 'text', (c) => c.notNull())
      .addColumn('is_subagent', 'integer', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('config', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('delegatable', 'integer', (c) => c.notNull())
      .addColumn('delegation_brief', 'text')
      .addColumn('is_default', 'integer', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await uniqueIndex(db, 'agents_slug_uq', 'agents', ['slug']).execute();
    await uniqueIndex(db, 'agents_default_uq', 'agents', ['is_default'])
      .where('is_default', '=', 1)
      .execute();
    await index(db, 'agents_owner_idx', 'agents', ['owner_id']);

    await db.schema
      .createTable('agent_access')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('agent_access_pkey', ['user_id', 'agent_id'])
      .execute();
    await index(db, 'agent_access_agent_idx', 'agent_access', ['agent_id']);

    await db.schema
      .createTable('projects')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('workdir', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await index(db, 'projects_user_idx', 'projects', ['user_id', 'created_at']);

    await db.schema
      .createTable('conversations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
      .addColumn('thread_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await uniqueIndex(db, 'conversations_thread_uq', 'conversations', ['thread_id']).execute();
    await index(db, 'conversations_user_status_updated_idx', 'conversations', [
      'user_id',
      'status',
      'updated_at',
    ]);

    // Created before `runs` so runs can reference it; its own `created_by_run_id` has no foreign key
    // because PostgreSQL cannot declare a cycle inline and SQLite cannot add one later.
    await db.schema
      .createTable('subagent_threads')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('parent_conversation_id', 'text', (c) => c.notNull().references('conversations.id'))
      .addColumn('child_conversation_id', 'text', (c) => c.notNull().references('conversations.id'))
      .addColumn('child_thread_id', 'text', (c) => c.notNull())
      .addColumn('subagent_slug', 'text', (c) => c.notNull())
      .addColumn('created_by_run_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await uniqueIndex(db, 'subagent_threads_child_thread_uq', 'subagent_threads', [
      'child_thread_id',
    ]).execute();
    await uniqueIndex(db, 'subagent_threads_child_conversation_uq', 'subagent_threads', [
      'child_conversation_id',
    ]).execute();
    await index(db, 'subagent_threads_parent_idx', 'subagent_threads', [
      'parent_conversation_id',
      'created_at',
    ]);

    await db.schema
      .createTable('runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('thread_id', 'text', (c) => c.notNull())
      .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id'))
      .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('run_type', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('created_by_run_id', 'text', (c) => c.references('runs.id'))
      .addColumn('root_run_id', 'text', (c) => c.notNull().references('runs.id'))
      .addColumn('depth', 'integer', (c) => c.notNull())
      .addColumn('subagent_thread_relation_id', 'text', (c) => c.references('subagent_threads.id'))
      .addColumn('runtime_scope_id', 'text', (c) => c.notNull())
      .addColumn('tool_approval_mode', 'text', (c) => c.notNull())
      .addColumn('model_spec', 'text', (c) => c.notNull())
      .addColumn('input', 'text', (c) => c.notNull())
      .addColumn('output', 'text')
      .addColumn('error', 'text')
      .addColumn('usage', 'text')
      .addColumn('worker_id', 'text')
      .addColumn('lease_expires_at', 'text')
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await uniqueIndex(db, 'runs_request_id_uq', 'runs', ['request_id']).execute();
    await uniqueIndex(db, 'runs_active_thread_uq', 'runs', ['thread_id'])
      .where('status', 'in', [...ACTIVE_RUN_STATUSES])
      .execute();
    await index(db, 'runs_created_by_idx', 'runs', ['created_by_run_id', 'status']);
    await index(db, 'runs_root_idx', 'runs', ['root_run_id', 'created_at']);
    await index(db, 'runs_conversation_idx', 'runs', ['conversation_id', 'created_at']);
    await index(db, 'runs_status_lease_idx', 'runs', ['status', 'lease_expires_at']);
    await index(db, 'runs_status_created_idx', 'runs', ['status', 'created_at']);
    await index(db, 'runs_user_status_idx', 'runs', ['user_id', 'status']);

    await db.schema
      .createTable('thread_messages')
      .addColumn('thread_id', 'text', (c) => c.notNull().references('conversations.thread_id'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('run_id', 'text', (c) => c.references('runs.id'))
      .addColumn('step', 'integer', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await uniqueIndex(db, 'thread_messages_thread_seq_uq', 'thread_messages', ['thread_id', 'seq']).execute();
    await index(db, 'thread_messages_run_step_idx', 'thread_messages', ['run_id', 'step']);

    await db.schema
      .createTable('run_events')
      .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await uniqueIndex(db, 'run_events_run_seq_uq', 'run_events', ['run_id', 'seq']).execute();
  },

  async down(db: AnyDb) {
    for (const table of [
      'run_events',
      'thread_messages',
      'runs',
      'subagent_threads',
      'conversations',
      'projects',
      'agent_access',
      'agents',
      'api_tokens',
      'users',
    ]) {
      await db.schema.dropTable(table).execute();
    }
  },
};

/** Human approvals of sensitive tool calls, and the steering inbox of running runs (issue 3). */
const approvalsAndInbox: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('tool_approvals')
      .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id'))
      .addColumn('tool_call_id', 'text', (c) => c.notNull())
      .addColumn('tool_name', 'text', (c) => c.notNull())
      .addColumn('args', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('comment', 'text')
      .addColumn('decided_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('decided_at', 'text')
      .addPrimaryKeyConstraint('tool_approvals_pkey', ['run_id', 'tool_call_id'])
      .execute();

    await db.schema
      .createTable('run_inbox')
      .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('read_at', 'text')
      .execute();
    await uniqueIndex(db, 'run_inbox_run_seq_uq', 'run_inbox', ['run_id', 'seq']).execute();
  },

  async down(db: AnyDb) {
    await db.schema.dropTable('run_inbox').execute();
    await db.schema.dropTable('tool_approvals').execute();
  },
};

/**
 * `request_id` is unique per user, not globally (docs/runs.md): with one global key, user B sending user A's id got
 * 409 `request_id_conflict`, which told B the id was taken and let anyone block another user's ids.
 */
const requestIdPerUser: Migration = {
  async up(db: AnyDb) {
    await db.schema.dropIndex('runs_request_id_uq').execute();
    await uniqueIndex(db, 'runs_user_request_id_uq', 'runs', ['user_id', 'request_id']).execute();
  },

  async down(db: AnyDb) {
    await db.schema.dropIndex('runs_user_request_id_uq').execute();
    await uniqueIndex(db, 'runs_request_id_uq', 'runs', ['request_id']).execute();
  },
};

/**
 * Skills (issue 13, docs/skills-and-knowledge.md): the skill rows, their files and access grants. File contents are base64 text
 * so one column type serves SQLite and PostgreSQL; a skill is capped at a few MiB, so the overhead is small,
 * and every process of a scale-out deployment reads the same bytes from the database.
 */
const skills: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('skills')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('file_count', 'integer', (c) => c.notNull())
      .addColumn('total_bytes', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .execute();
    // Deleted skills keep their name: a name in `config.skills` never passes to another owner.
    await uniqueIndex(db, 'skills_name_uq', 'skills', ['name']).execute();
    await index(db, 'skills_owner_idx', 'skills', ['owner_id']);

    await db.schema
      .createTable('skill_files')
      .addColumn('skill_id', 'text', (c) => c.notNull().references('skills.id'))
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('skill_files_pkey', ['skill_id', 'path'])
      .execute();

    await db.schema
      .createTable('skill_access')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('skill_id', 'text', (c) => c.notNull().references('skills.id'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('skill_access_pkey', ['user_id', 'skill_id'])
      .execute();
    await index(db, 'skill_access_skill_idx', 'skill_access', ['skill_id']);
  },

  async down(db: AnyDb) {
    await db.schema.dropTable('skill_access').execute();
    await db.schema.dropTable('skill_files').execute();
    await db.schema.dropTable('skills').execute();
  },
};

/**
 * The console's runs explorer pages through runs newest first, per user (members) or across users
 * (admins): without these the keyset query sorts every matching row for each page.
 */
const runsListIndex: Migration = {
  async up(db: AnyDb) {
    await index(db, 'runs_user_created_idx', 'runs', ['user_id', 'created_at', 'id']);
    await index(db, 'runs_created_idx', 'runs', ['created_at', 'id']);
  },

  async down(db: AnyDb) {
    await db.schema.dropIndex('runs_created_idx').execute();
    await db.schema.dropIndex('runs_user_created_idx').execute();
  },
};

/**
 * Issue 12: questions share the approvals table (a question is a pending human input with an answer
 * payload), artifacts presented by runs, and files attached to conversations.
 */
const artifactsAndAttachments: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .alterTable('tool_approvals')
      .addColumn('kind', 'text', (c) => c.notNull().defaultTo('approval'))
      .execute();
    await db.schema.alterTable('tool_approvals').addColumn('answers', 'text').execute();

    await db.schema
      .createTable('artifacts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id'))
      .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('tool_call_id', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('title', 'text')
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await uniqueIndex(db, 'artifacts_call_path_uq', 'artifacts', [
      'run_id',
      'tool_call_id',
      'path',
    ]).execute();
    await index(db, 'artifacts_conversation_idx', 'artifacts', ['conversation_id', 'created_at']);

    await db.schema
      .createTable('attachments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await index(db, 'attachments_conversation_idx', 'attachments', ['conversation_id', 'created_at']);
  },

  async down(db: AnyDb) {
    await db.schema.dropTable('attachments').execute();
    await db.schema.dropTable('artifacts').execute();
    await db.schema.alterTable('tool_approvals').dropColumn('answers').execute();
    await db.schema.alterTable('tool_approvals').dropColumn('kind').execute();
  },
};

/** Versioned migrations by name; names sort in application order. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial_schema': initialSchema,
  '0002_approvals_and_inbox': approvalsAndInbox,
  '0003_request_id_per_user': requestIdPerUser,
  '0005_skills': skills,
  '0006_knowledge': knowledgeMigration,
  '0007_runs_list_index': runsListIndex,
  '0004_artifacts_and_attachments': artifactsAndAttachments,
  '0008_run_budgets': budgetMigration,
  '0009_runs_partial_indexes': runsPartialIndexesMigration,
  '0010_runs_user_quota_index': runsUserQuotaIndexMigration,
  '0011_lean_indexes': leanIndexesMigration,
  '0012_approval_scope': approvalScopeMigration,
  '0013_knowledge_scoped_ranking': knowledgeRankingMigration,
  '0014_message_usage': messageUsageMigration,
  '0018_run_forks': runForksMigration,
  '0019_run_verifications': verificationMigration,
  '0017_tool_call_starts': toolCallStartsMigration,
  '0020_sequence_counters': sequenceCountersMigration,
};

const migrationProvider: MigrationProvider = { getMigrations: () => Promise.resolve({ ...MIGRATIONS }) };

export interface MigrateOptions {
  /**
   * Schema of the migration bookkeeping tables (PostgreSQL). Without it Kysely looks for them in every
   * schema of the database, so a second Troupe schema in the same database would look migrated.
   */
  migrationTableSchema?: string;
}

function migratorFor(db: Kysely<DatabaseSchema>, options: MigrateOptions): Migrator {
  return new Migrator({
    db,
    provider: migrationProvider,
    migrationTableName: 'troupe_migration',
    migrationLockTableName: 'troupe_migration_lock',
    ...(options.migrationTableSchema === undefined
      ? {}
      : { migrationTableSchema: options.migrationTableSchema }),
  });
}

/** Brings the schema to the latest version; a no-op when it is already there. Returns what it applied. */
export async function migrateToLatest(
  db: Kysely<DatabaseSchema>,
  options: MigrateOptions = {},
): Promise<string[]> {
  const { error, results } = await migratorFor(db, options).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    const which = failed === undefined ? 'Database migration' : `Database migration ${failed}`;
    throw new Error(`${which} failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`, {
      cause: error,
    });
  }
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}
