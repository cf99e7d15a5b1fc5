import type {
  RunVerificationRepository,
  StoredVerification,
} from '../../../core/ports/run-verification-repository.js';
import type { Verification } from '../../../core/verification/verification.js';
import type { RunVerificationsTable } from './database-schema.js';
import { fromJson, nowIso, toJson, type SqlContext } from './sql-context.js';
import { selectByIds } from './select-by-ids.js';

function fromRow(row: RunVerificationsTable): StoredVerification {
  return {
    run_id: row.run_id,
    user_id: row.user_id,
    parent_run_id: row.parent_run_id,
    verdict: row.verdict,
    verification: fromJson<Verification>(row.verification),
    created_at: row.created_at,
  };
}

/** Verdicts on child results (docs/verified-delegation.md#where-verdicts-are-kept). */
export class SqlRunVerificationRepository implements RunVerificationRepository {
  constructor(private readonly ctx: SqlContext) {}

  async put(input: Omit<StoredVerification, 'created_at'>): Promise<StoredVerification> {
    const row: RunVerificationsTable = {
      run_id: input.run_id,
      user_id: input.user_id,
      parent_run_id: input.parent_run_id,
      verdict: input.verdict,
      verification: toJson(input.verification),
      created_at: nowIso(this.ctx),
    };
    await this.ctx.db
      .insertInto('run_verifications')
      .values(row)
      .onConflict((conflict) =>
        conflict.column('run_id').doUpdateSet({
          verdict: row.verdict,
          verification: row.verification,
          created_at: row.created_at,
        }),
      )
      .execute();
    return fromRow(row);
  }

  async get(runId: string): Promise<StoredVerification | undefined> {
    const row = await this.ctx.db
      .selectFrom('run_verifications')
      .selectAll()
      .where('run_id', '=', runId)
      .executeTakeFirst();
    return row && fromRow(row);
  }

  async getMany(runIds: readonly string[]): Promise<StoredVerification[]> {
    const rows = await selectByIds(runIds, (chunk) =>
      this.ctx.db.selectFrom('run_verifications').selectAll().where('run_id', 'in', chunk).execute(),
    );
    return rows.map(fromRow);
  }
}
