/**
 * The client requests this process takes up in the current event-loop turn, counted by the HTTP layer as
 * each one arrives. Requests come in bursts under load: the sockets that became readable together are read
 * in one turn. A run start reads it to decide whether to wait for that turn's end, so the starts the other
 * requests of the burst bring share its COMMIT (`SharedCommitOptions.gather`): worth a turn under load, a
 * pure delay for a client that waits for each answer, whose request is the only one of its turn.
 */
export class RequestArrivals {
  #thisTurn = 0;
  #resetScheduled = false;

  /** Counts a request arriving now. */
  arrived(): void {
    this.#thisTurn += 1;
    if (this.#resetScheduled) return;
    this.#resetScheduled = true;
    setImmediate(() => {
      this.#thisTurn = 0;
      this.#resetScheduled = false;
    });
  }

  /** Whether another request arrived in this turn besides the caller's own: a burst. */
  get inBurst(): boolean {
    return this.#thisTurn > 1;
  }
}
