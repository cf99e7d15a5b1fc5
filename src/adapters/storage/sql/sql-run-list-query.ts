import { sql } from 'kysely';
import type { RunListEntry, RunListFilter } from '../../../core/ports/storage.js';
import { runFromRow } from './run-from-row.js';
import type { SqlContext } from './sql-context.js';
import { toNumber } from './sql-context.js';

/** `%`, `_` and the escape character itself are literal in a search: the user types text, not a pattern. */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * `runs.listPage`: one keyset page, newest first by (created_at, id), with the agent joined and the number
 * of runs each run created counted in the same statement. The search reads `input.message` with each
 * engine's JSON function; `lower()` on both sides keeps it case-insensitive the same way on both.
 */
export async function listRunPage(ctx: SqlContext, filter: RunListFilter): Promise<RunListEntry[]> {
  // `IN ()` is invalid on PostgreSQL; an empty list matches nothing anyway.
  if (
    filter.statuses?.length === 0 ||
    filter.run_types?.length === 0 ||
    filter.verdicts?.length === 0 ||
    filter.limit <= 0
  )
    return [];
  let query = ctx.db
    .selectFrom('runs')
    .leftJoin('agents', 'agents.id', 'runs.agent_id')
    .selectAll('runs')
    .select(['agents.slug as agent_slug', 'agents.name as agent_name'])
    .select((eb) =>
      eb
        .selectFrom('runs as children')
        .select((inner) => inner.fn.countAll().as('n'))
        .whereRef('children.created_by_run_id', '=', 'runs.id')
        .as('child_count'),
    );
  if (filter.user_id !== undefined) query = query.where('runs.user_id', '=', filter.user_id);
  if (filter.statuses !== undefined) query = query.where('runs.status', 'in', filter.statuses);
  if (filter.run_types !== undefined) query = query.where('runs.run_type', 'in', filter.run_types);
  if (filter.agent_id !== undefined) query = query.where('runs.agent_id', '=', filter.agent_id);
  if (filter.conversation_id !== undefined)
    query = query.where('runs.conversation_id', '=', filter.conversation_id);
  const verdicts = filter.verdicts;
  if (verdicts !== undefined) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('run_verifications as v')
          .select('v.run_id')
          .whereRef('v.run_id', '=', 'runs.id')
          .where('v.verdict', 'in', verdicts),
      ),
    );
  }
  if (filter.created_from !== undefined) query = query.where('runs.created_at', '>=', filter.created_from);
  if (filter.created_to !== undefined) query = query.where('runs.created_at', '<', filter.created_to);
  if (filter.forked !== undefined)
    query = query.where('runs.forked_from', filter.forked ? 'is not' : 'is', null);
  if (filter.search !== undefined && filter.search !== '') {
    const message =
      ctx.dialect.name === 'postgres'
        ? sql<string>`(runs.input::jsonb ->> 'message')`
        : sql<string>`json_extract(runs.input, '$.message')`;
    query = query.where(
      sql<boolean>`lower(${message}) like lower(${likePattern(filter.search)}) escape '\\'`,
    );
  }
  const before = filter.before;
  if (before !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('runs.created_at', '<', before.created_at),
        eb.and([eb('runs.created_at', '=', before.created_at), eb('runs.id', '<', before.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy('runs.created_at', 'desc')
    .orderBy('runs.id', 'desc')
    .limit(filter.limit)
    .execute();
  return rows.map((row) => {
    const { agent_slug, agent_name, child_count, ...run } = row;
    return {
      run: runFromRow(run),
      child_count: toNumber(child_count),
      agent:
        agent_slug === null || agent_name === null
          ? null
          : { id: run.agent_id, slug: agent_slug, name: agent_name },
    };
  });
}
