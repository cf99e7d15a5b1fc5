import type { Selectable, Updateable } from 'kysely';
import { TroupeError } from '../../../core/errors.js';
import { ACTIVE_RUN_STATUSES } from '../../../core/records/run.js';
import type { Run, RunStatus } from '../../../core/records/run.js';
import { assertTransition } from '../../../core/run-state-machine.js';
import type {
  ChildStartAlso,
  ChildStartParent,
  ClaimTerms,
  NewRun,
  RunExpectation,
  RunListEntry,
  RunListFilter,
  RunAttemptContext,
  RunPatch,
  RunRepository,
} from '../../../core/ports/storage.js';
import type { RunsTable } from './database-schema.js';
import { nowIso, toJson, translateUniqueViolation } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { listRunPage } from './sql-run-list-query.js';
import { listRunsByRoot } from './sql-run-tree-query.js';
import { runFromRow } from './run-from-row.js';
import { newRunRow } from './new-run-row.js';
import { selectByIds } from './select-by-ids.js';
import { claimWithContext, selectAttemptContext } from './select-attempt-context.js';
import { claimAfterStart, holdClaims } from './run-start-claims.js';
import { selectChildStartParent } from './select-child-start.js';
import {
  claimRun,
  insertRun,
  selectActiveDescendants,
  selectChildren,
  selectLineageStatuses,
  selectActiveBelowTurn,
  selectRun,
  selectRunByRequestId,
  updateRun,
  activeStatusTerm,
} from './sql-run-hot-queries.js';
import { RunExpectationMissed } from '../../../core/runs/run-expectation-missed.js';

/** Statuses in which a worker holds a lease. */
const LEASED_STATUSES = ['running', 'cancel_requested'] as const;

function patchToRow(patch: RunPatch): Updateable<RunsTable> {
  const row: Updateable<RunsTable> = {};
  if (patch.status !== undefined) row.status = patch.status;
  if (patch.output !== undefined) row.output = patch.output;
  if (patch.error !== undefined) row.error = patch.error === null ? null : toJson(patch.error);
  if (patch.usage !== undefined) row.usage = patch.usage === null ? null : toJson(patch.usage);
  if (patch.worker_id !== undefined) row.worker_id = patch.worker_id;
  if (patch.lease_expires_at !== undefined) row.lease_expires_at = patch.lease_expires_at;
  if (patch.attempt !== undefined) row.attempt = patch.attempt;
  if (patch.started_at !== undefined) row.started_at = patch.started_at;
  if (patch.finished_at !== undefined) row.finished_at = patch.finished_at;
  return row;
}

/**
 * Every status change of a run is a compare-and-set from the statuses it may come from, and each of those
 * moves must be one the state machine allows: the runtime's status writes cannot drift from it.
 */
function assertStatusWrite(from: readonly RunStatus[] | undefined, to: RunStatus): void {
  if (from === undefined) {
    throw new TroupeError('invalid_transition', `A move to ${to} must name the statuses it moves from`);
  }
  for (const status of from) if (status !== to) assertTransition(status, to);
}

function runBusy(message: string, threadId?: string): TroupeError {
  return new TroupeError('run_busy', message, {
    details: threadId === undefined ? {} : { thread_id: threadId },
  });
}

function requestIdConflict(requestId: string): TroupeError {
  return new TroupeError('request_id_conflict', `A run with request id ${requestId} already exists`, {
    details: { request_id: requestId },
  });
}

export class SqlRunRepository implements RunRepository {
  constructor(private readonly ctx: SqlContext) {}

  async insert(run: NewRun, claim?: ClaimTerms): Promise<Run> {
    const now = nowIso(this.ctx);
    const row = newRunRow(run, now);
    if (claim) {
      assertStatusWrite(['pending'], 'running');
      const [workerId, leaseExpiresAt, startedAt] = claim;
      Object.assign(row, {
        status: 'running',
        worker_id: workerId,
        lease_expires_at: leaseExpiresAt,
        attempt: 1,
        started_at: startedAt,
      });
    }
    // DO NOTHING on every unique key, then name the key: on PostgreSQL a conflict target covers only its own
    // index, and a replay racing its original on one thread could reach the one-active-run index first and
    // be refused as run_busy. Without a target no insert raises, so the transaction stays usable to look.
    const { numAffectedRows } = await insertRun(this.ctx, { ...row });
    if (numAffectedRows !== undefined && numAffectedRows > 0n) return runFromRow(row);
    throw await this.insertConflict(run);
  }

  /** Which key refused an insert; the replay first, since a replay on a busy thread is still a replay. */
  private async insertConflict(run: NewRun): Promise<TroupeError> {
    if (await this.getByRequestId(run.user_id, run.request_id)) return requestIdConflict(run.request_id);
    if (!(await this.getActiveForThread(run.thread_id)) && (await this.get(run.id))) {
      return new TroupeError('internal', 'Unique key runs_pkey violated', {
        details: { constraint: 'runs_pkey' },
      });
    }
    // The active run may have ended since; the thread was busy when the insert ran.
    return runBusy(`Thread ${run.thread_id} already has an active run`, run.thread_id);
  }

  async get(id: string): Promise<Run | undefined> {
    const row = (await selectRun(this.ctx, { id })).rows[0];
    return row && runFromRow(row);
  }

  async getMany(ids: readonly string[]): Promise<Run[]> {
    // One run is the common case (every single await): the prepared read by id.
    if (new Set(ids).size === 1) {
      const run = await this.get(ids[0] as string);
      return run ? [run] : [];
    }
    const rows = await selectByIds(ids, (chunk) =>
      this.ctx.db.selectFrom('runs').selectAll().where('id', 'in', chunk).execute(),
    );
    return rows.map(runFromRow);
  }

  attemptContext(runId: string): Promise<RunAttemptContext> {
    return selectAttemptContext(this.ctx, runId);
  }

  async getByRequestId(userId: string, requestId: string): Promise<Run | undefined> {
    const row = (await selectRunByRequestId(this.ctx, { userId, requestId })).rows[0];
    return row && runFromRow(row);
  }

  async getActiveForThread(threadId: string): Promise<Run | undefined> {
    const row = await this.ctx.db
      .selectFrom('runs')
      .selectAll()
      .where('thread_id', '=', threadId)
      .where('status', 'in', ACTIVE_RUN_STATUSES)
      .executeTakeFirst();
    return row && runFromRow(row);
  }

  async update(
    id: string,
    expect: RunExpectation,
    patch: RunPatch,
    options: { orFail?: boolean } = {},
  ): Promise<Run | undefined> {
    const orFail = options.orFail === true;
    // `status IN ()` is invalid on PostgreSQL; an empty list can never match anyway.
    if (expect.status?.length === 0) {
      if (orFail) throw new RunExpectationMissed(id);
      return undefined;
    }
    if (patch.status !== undefined) assertStatusWrite(expect.status, patch.status);
    let row: Selectable<RunsTable> | undefined;
    try {
      const { rows } = await updateRun(
        this.ctx,
        id,
        { ...patchToRow(patch), updated_at: nowIso(this.ctx) },
        expect,
        orFail,
      );
      row = rows[0];
    } catch (error) {
      if (orFail && this.ctx.dialect.guardFailed(error)) throw new RunExpectationMissed(id);
      // Only a move back into an active status can collide: another run already holds the thread.
      return translateUniqueViolation(this.ctx, error, {
        runs_active_thread_uq: () =>
          runBusy(`Run ${id} cannot become active: its thread already has an active run`),
      });
    }
    if (row === undefined && orFail) throw new RunExpectationMissed(id);
    return row && runFromRow(row);
  }

  async claim(id: string, workerId: string, leaseExpiresAt: string, now: string): Promise<Run | undefined> {
    assertStatusWrite(['pending'], 'running');
    const args = { id, workerId, leaseExpiresAt, now, updatedAt: nowIso(this.ctx) };
    const { rows } = await claimAfterStart(this.ctx, id, (ctx) => claimRun(ctx, args));
    return rows[0] && runFromRow(rows[0]);
  }

  claimWithContext(
    id: string,
    workerId: string,
    leaseExpiresAt: string,
    now: string,
  ): Promise<{ run: Run; context: RunAttemptContext } | undefined> {
    assertStatusWrite(['pending'], 'running');
    const args = { id, workerId, leaseExpiresAt, now, updatedAt: nowIso(this.ctx) };
    return claimAfterStart(this.ctx, id, (ctx) => claimWithContext(ctx, args));
  }

  holdClaims(id: string): Promise<boolean> {
    return holdClaims(this.ctx, id);
  }

  async lineageStatuses(id: string): Promise<RunStatus[]> {
    const { rows } = await selectLineageStatuses(this.ctx, { id });
    return rows.map((row) => row.status);
  }

  async listChildren(runId: string): Promise<Run[]> {
    const { rows } = await selectChildren(this.ctx, { runId });
    return rows.map(runFromRow);
  }

  async listChildrenInConversation(conversationId: string): Promise<Run[]> {
    const rows = await this.ctx.db
      .selectFrom('runs as parent')
      .innerJoin('runs as child', 'child.created_by_run_id', 'parent.id')
      .selectAll('child')
      .where('parent.conversation_id', '=', conversationId)
      .orderBy('child.created_at')
      .orderBy('child.id')
      .execute();
    return rows.map(runFromRow);
  }

  async listActiveDescendants(runId: string): Promise<Run[]> {
    const { rows } = await selectActiveDescendants(this.ctx, { runId });
    return rows.map(runFromRow);
  }

  listByRoot(rootRunId: string): Promise<Run[]> {
    return listRunsByRoot(this.ctx, rootRunId);
  }

  async listByConversation(conversationId: string): Promise<Run[]> {
    const rows = await this.ctx.db
      .selectFrom('runs')
      .selectAll()
      .where('conversation_id', '=', conversationId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(runFromRow);
  }

  async listActiveBelowTurn(
    run: Pick<Run, 'id' | 'conversation_id' | 'created_at'>,
    options: { own: boolean },
  ): Promise<Run[]> {
    const { rows } = await selectActiveBelowTurn(options)(this.ctx, {
      id: run.id,
      conversationId: run.conversation_id,
      createdAt: run.created_at,
    });
    return rows.map(runFromRow);
  }

  async listExpiredLeases(now: string, limit: number): Promise<Run[]> {
    const rows = await this.ctx.db
      .selectFrom('runs')
      .selectAll()
      .where(activeStatusTerm)
      .where('status', 'in', LEASED_STATUSES)
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]))
      // Explicit NULLS FIRST: the engines disagree on where NULL sorts by default.
      .orderBy('lease_expires_at', (ob) => ob.asc().nullsFirst())
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(runFromRow);
  }

  async listStalePending(before: string, limit: number): Promise<Run[]> {
    const rows = await this.ctx.db
      .selectFrom('runs')
      .selectAll()
      .where(activeStatusTerm)
      .where('status', '=', 'pending')
      .where('created_at', '<', before)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(runFromRow);
  }

  getWithActiveChildren(
    id: string,
    userId: string,
    also: ChildStartAlso = {},
  ): Promise<ChildStartParent | undefined> {
    return selectChildStartParent(this.ctx, id, userId, also);
  }

  listPage(filter: RunListFilter): Promise<RunListEntry[]> {
    return listRunPage(this.ctx, filter);
  }
}
