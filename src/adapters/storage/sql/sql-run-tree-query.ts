import type { Run } from '../../../core/records/run.js';
import { runFromRow } from './run-from-row.js';
import type { SqlContext } from './sql-context.js';

/**
 * `runs.listByRoot`: every run of a tree, oldest first. `runs_root_idx` holds only runs that have a creator
 * (a root run start skips it), so the root itself, the one run of its tree without a creator and with its
 * own id as `root_run_id`, comes by primary key; both engines read the two arms by index and merge them.
 */
export async function listRunsByRoot(ctx: SqlContext, rootRunId: string): Promise<Run[]> {
  const rows = await ctx.db
    .selectFrom('runs')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('root_run_id', '=', rootRunId), eb('created_by_run_id', 'is not', null)]),
        eb.and([eb('id', '=', rootRunId), eb('root_run_id', '=', rootRunId)]),
      ]),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(runFromRow);
}
