import type { Kysely, Selectable } from 'kysely';
import { TroupeError } from '../../../core/errors.js';
import { newId } from '../../../core/ids.js';
import type { NewSkill, SkillContent, SkillRepository } from '../../../core/ports/storage.js';
import type { Skill, SkillFile, SkillFileInfo, SkillVisibility } from '../../../core/records/skill.js';
import type { Actor } from '../../../core/records/user.js';
import { isAdmin } from '../../../core/records/user.js';
import type { DatabaseSchema, SkillFilesTable, SkillsTable } from './database-schema.js';
import { atomically, nowIso, toNumber, translateUniqueViolation } from './sql-context.js';
import type { SqlContext } from './sql-context.js';

export function skillFromRow(row: Selectable<SkillsTable>): Skill {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    owner_id: row.owner_id,
    visibility: row.visibility,
    digest: row.digest,
    file_count: toNumber(row.file_count),
    total_bytes: toNumber(row.total_bytes),
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
  };
}

function fileRows(skillId: string, files: readonly SkillFile[]): SkillFilesTable[] {
  return files.map((file) => ({
    skill_id: skillId,
    path: file.path,
    size: file.content.byteLength,
    content: Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength).toString(
      'base64',
    ),
  }));
}

/** Inserted in slices: one statement per ~50 files keeps far below both engines' bound-parameter limits. */
async function insertFiles(
  db: Kysely<DatabaseSchema>,
  skillId: string,
  files: readonly SkillFile[],
): Promise<void> {
  const rows = fileRows(skillId, files);
  for (let start = 0; start < rows.length; start += 50) {
    await db
      .insertInto('skill_files')
      .values(rows.slice(start, start + 50))
      .execute();
  }
}

/** Sorted here, not in SQL: PostgreSQL collations may order paths differently from SQLite's bytes. */
function byPath(left: { path: string }, right: { path: string }): number {
  return left.path < right.path ? -1 : left.path > right.path ? 1 : 0;
}

function notFound(id: string): TroupeError {
  return new TroupeError('skill_not_found', `Skill ${id} not found`);
}

export class SqlSkillRepository implements SkillRepository {
  constructor(private readonly ctx: SqlContext) {}

  async create(skill: NewSkill): Promise<Skill> {
    const now = nowIso(this.ctx);
    const row: SkillsTable = {
      id: newId('skl'),
      name: skill.name,
      description: skill.description,
      owner_id: skill.owner_id,
      visibility: skill.visibility,
      digest: skill.digest,
      file_count: skill.files.length,
      total_bytes: skill.total_bytes,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    try {
      await atomically(this.ctx, async (db) => {
        await db.insertInto('skills').values(row).execute();
        await insertFiles(db, row.id, skill.files);
      });
    } catch (error) {
      translateUniqueViolation(this.ctx, error, {
        skills_name_uq: () =>
          new TroupeError('skill_name_taken', `The skill name ${skill.name} is already taken`),
      });
    }
    return skillFromRow(row);
  }

  async get(id: string): Promise<Skill | undefined> {
    const row = await this.ctx.db.selectFrom('skills').selectAll().where('id', '=', id).executeTakeFirst();
    return row && skillFromRow(row);
  }

  async getByName(name: string): Promise<Skill | undefined> {
    const row = await this.ctx.db
      .selectFrom('skills')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirst();
    return row && skillFromRow(row);
  }

  async replaceContent(id: string, content: SkillContent, visibility?: SkillVisibility): Promise<Skill> {
    const now = nowIso(this.ctx);
    const row = await atomically(this.ctx, async (db) => {
      const updated = await db
        .updateTable('skills')
        .set({
          description: content.description,
          digest: content.digest,
          file_count: content.files.length,
          total_bytes: content.total_bytes,
          updated_at: now,
          deleted_at: null,
          ...(visibility === undefined ? {} : { visibility }),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      if (updated === undefined) throw notFound(id);
      await db.deleteFrom('skill_files').where('skill_id', '=', id).execute();
      await insertFiles(db, id, content.files);
      return updated;
    });
    return skillFromRow(row);
  }

  async setVisibility(id: string, visibility: SkillVisibility): Promise<Skill> {
    const row = await this.ctx.db
      .updateTable('skills')
      .set({ visibility, updated_at: nowIso(this.ctx) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (row === undefined) throw notFound(id);
    return skillFromRow(row);
  }

  async softDelete(id: string, at: string): Promise<void> {
    await atomically(this.ctx, async (db) => {
      // A second delete keeps the first deletion time.
      const result = await db
        .updateTable('skills')
        .set((eb) => ({
          deleted_at: eb.fn.coalesce('deleted_at', eb.val(at)),
          file_count: 0,
          total_bytes: 0,
          updated_at: at,
        }))
        .where('id', '=', id)
        .executeTakeFirst();
      if (toNumber(result.numUpdatedRows) === 0) throw notFound(id);
      await db.deleteFrom('skill_files').where('skill_id', '=', id).execute();
      await db.deleteFrom('skill_access').where('skill_id', '=', id).execute();
    });
  }

  async listUsable(actor: Actor, filter: { names?: readonly string[] } = {}): Promise<Skill[]> {
    if (filter.names?.length === 0) return [];
    let query = this.ctx.db.selectFrom('skills').selectAll('skills').where('skills.deleted_at', 'is', null);
    if (filter.names !== undefined) query = query.where('skills.name', 'in', [...filter.names]);
    if (!isAdmin(actor)) {
      query = query.where((eb) =>
        eb.or([
          eb('skills.owner_id', '=', actor.id),
          eb('skills.visibility', '=', 'public'),
          eb.exists(
            eb
              .selectFrom('skill_access')
              .select(eb.lit(1).as('granted'))
              .where('skill_access.user_id', '=', actor.id)
              .whereRef('skill_access.skill_id', '=', 'skills.id'),
          ),
        ]),
      );
    }
    const rows = await query.execute();
    return rows
      .map(skillFromRow)
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  }

  async listFiles(skillId: string): Promise<SkillFileInfo[]> {
    const rows = await this.ctx.db
      .selectFrom('skill_files')
      .select(['path', 'size'])
      .where('skill_id', '=', skillId)
      .execute();
    return rows.map((row) => ({ path: row.path, size: toNumber(row.size) })).sort(byPath);
  }

  async readFiles(skillId: string): Promise<SkillFile[]> {
    const rows = await this.ctx.db
      .selectFrom('skill_files')
      .select(['path', 'content'])
      .where('skill_id', '=', skillId)
      .execute();
    return rows
      .map((row) => ({ path: row.path, content: new Uint8Array(Buffer.from(row.content, 'base64')) }))
      .sort(byPath);
  }
}
