/**
 * Thrown inside a transaction whose run ending went out with its events before its compare-and-set answered
 * (`endRunIn`, speculative) and found the run already moved by someone else: the transaction rolls back, and
 * the commit that held it runs again with the ending done the careful way (`CommitAttempt.careful`), which
 * commits the step on its own and leaves the run to whoever moved it (docs/scale-out.md, "What scales how").
 */
export class EndingRaced extends Error {
  constructor(readonly runId: string) {
    super(`Run ${runId} moved before its ending's compare-and-set: its commit runs again`);
    this.name = 'EndingRaced';
  }
}
