import { sql, type Selectable } from 'kysely';
import { newId } from '../../../core/ids.js';
import type { Project } from '../../../core/records/project.js';
import type { NewProject, ProjectRepository } from '../../../core/ports/storage.js';
import type { ProjectsTable } from './database-schema.js';
import { nowIso } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { preparedQuery } from './prepared-query.js';

const selectProject = preparedQuery((db, args: { id: string }) =>
  db.selectFrom('projects').selectAll().where('id', '=', args.id),
);

// `projects_user_idx` (user_id, created_at) walks one user's projects oldest first, so this stops at the first of
// the name instead of reading every project the user has (a conversation created without a project asks it).
const selectOldestNamed = preparedQuery((db, args: { userId: string; name: string }) =>
  db
    .selectFrom('projects')
    .selectAll()
    .where('user_id', '=', args.userId)
    .where('name', '=', args.name)
    .orderBy('created_at')
    .orderBy('id')
    .limit(sql.lit(1)),
);

export function projectFromRow(row: Selectable<ProjectsTable>): Project {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    workdir: row.workdir,
    created_at: row.created_at,
  };
}

export class SqlProjectRepository implements ProjectRepository {
  constructor(private readonly ctx: SqlContext) {}

  async create(project: NewProject): Promise<Project> {
    const row: ProjectsTable = {
      id: newId('prj'),
      user_id: project.user_id,
      name: project.name,
      workdir: project.workdir,
      created_at: nowIso(this.ctx),
    };
    await this.ctx.db.insertInto('projects').values(row).execute();
    return projectFromRow(row);
  }

  async get(id: string): Promise<Project | undefined> {
    const row = (await selectProject(this.ctx, { id })).rows[0];
    return row && projectFromRow(row);
  }

  async oldestNamed(userId: string, name: string): Promise<Project | undefined> {
    const row = (await selectOldestNamed(this.ctx, { userId, name })).rows[0];
    return row && projectFromRow(row);
  }

  async listForUser(userId: string): Promise<Project[]> {
    const rows = await this.ctx.db
      .selectFrom('projects')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(projectFromRow);
  }
}
