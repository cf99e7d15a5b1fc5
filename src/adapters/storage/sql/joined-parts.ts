import { sql, type Selectable } from 'kysely';
import type { DatabaseSchema } from './database-schema.js';
import {
  AGENT_COLUMNS,
  CONVERSATION_COLUMNS,
  PROJECT_COLUMNS,
  RUN_BUDGET_COLUMNS,
  SUBAGENT_THREAD_COLUMNS,
  USER_COLUMNS,
  type ColumnList,
} from './table-columns.js';

export type JoinedRow = Record<string, unknown>;

/** One joined table: its columns, and the one that is never null in a row that exists. */
export interface Part<N extends keyof DatabaseSchema> {
  table: N;
  columns: ColumnList<DatabaseSchema[N]>;
  key: keyof DatabaseSchema[N] & string;
}

export const AGENT: Part<'agents'> = { table: 'agents', columns: AGENT_COLUMNS, key: 'id' };
export const USER: Part<'users'> = { table: 'users', columns: USER_COLUMNS, key: 'id' };
export const CONVERSATION: Part<'conversations'> = {
  table: 'conversations',
  columns: CONVERSATION_COLUMNS,
  key: 'id',
};
export const PROJECT: Part<'projects'> = { table: 'projects', columns: PROJECT_COLUMNS, key: 'id' };
export const BUDGET: Part<'run_budgets'> = {
  table: 'run_budgets',
  columns: RUN_BUDGET_COLUMNS,
  key: 'run_id',
};

export const SUBAGENT_THREAD: Part<'subagent_threads'> = {
  table: 'subagent_threads',
  columns: SUBAGENT_THREAD_COLUMNS,
  key: 'id',
};

/** Joined tables share column names (id, created_at…): each column comes back as `"<table>.<column>"`. */
export function selected<N extends keyof DatabaseSchema>(part: Part<N>) {
  return part.columns.map((column) => sql.ref(`${part.table}.${column}`).as(`${part.table}.${column}`));
}

/** `selected` for a raw `sql` query: the part's columns as `"<table>.<column>"`, comma-separated. */
export function selectedSql<N extends keyof DatabaseSchema>(part: Part<N>) {
  return sql.join(
    part.columns.map(
      (column) => sql`${sql.ref(`${part.table}.${column}`)} AS ${sql.id(`${part.table}.${column}`)}`,
    ),
  );
}

/** Each part's columns with their joined names, built once: rowOf runs for every part of every read. */
const joinedNames = new WeakMap<object, readonly (readonly [string, string])[]>();

function namesOf<N extends keyof DatabaseSchema>(part: Part<N>): readonly (readonly [string, string])[] {
  let names = joinedNames.get(part);
  if (names === undefined) {
    names = part.columns.map((column) => [column, `${part.table}.${column}`] as const);
    joinedNames.set(part, names);
  }
  return names;
}

/** The part's own row out of the joined one; undefined when the LEFT JOIN found none. */
export function rowOf<N extends keyof DatabaseSchema>(
  row: JoinedRow,
  part: Part<N>,
): Selectable<DatabaseSchema[N]> | undefined {
  if (row[`${part.table}.${part.key}`] === null) return undefined;
  const own: Record<string, unknown> = {};
  for (const [column, joined] of namesOf(part)) own[column] = row[joined];
  // The columns are the table's own, checked exhaustive by table-columns.ts, with the engine's values.
  return own as Selectable<DatabaseSchema[N]>;
}

/** The part's record out of the joined row (`rowOf`, then its repository's `fromRow`); undefined when absent. */
export function partOf<N extends keyof DatabaseSchema, T>(
  row: JoinedRow,
  part: Part<N>,
  fromRow: (own: Selectable<DatabaseSchema[N]>) => T,
): T | undefined {
  const own = rowOf(row, part);
  return own && fromRow(own);
}
