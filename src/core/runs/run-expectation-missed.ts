/**
 * A compare-and-set asked to fail when its guard fails (`RunRepository.update` with `orFail`) found the run moved:
 * the statement itself failed, so on PostgreSQL the transaction it ran in is aborted on the server and commits
 * nothing, even with its COMMIT already sent behind it (`Storage.commitBehind`).
 */
export class RunExpectationMissed extends Error {
  constructor(readonly runId: string) {
    super(`Run ${runId} no longer matched its compare-and-set`);
    this.name = 'RunExpectationMissed';
  }
}
