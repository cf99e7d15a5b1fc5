import type { ThreadMessage } from '../../core/records/thread-message.js';

/** Enough for every run a busy process starts before its executor claims them; older offers are dropped. */
const MAX_OFFERS = 512;
/** A larger first message (a long paste, attachments) is read back instead of held: offers stay small. */
const MAX_OFFER_CHARS = 64 * 1024;

/**
 * The thread a run starts with, handed from the code that created the run to this process's executor, so the
 * run's first attempt does not read back what its creator just wrote. Offered only for a thread that holds
 * nothing but the run's first message (it took seq 1: a new chat, a new subagent or delegation thread), which
 * nobody else can add to while the run is active (one active run per thread). Taken once, by the attempt that
 * claims the run; a run claimed by another process, or resumed after a restart, reads its thread as always.
 * The messages are copies as a read would return them (JSON round trip), never the creator's objects.
 */
export class RunHandoffs {
  readonly #threads = new Map<string, ThreadMessage[]>();

  /** Offers `appended`, the messages that created the run, if they are the whole of its thread. */
  offer(runId: string, appended: readonly ThreadMessage[]): void {
    if (appended.length === 0 || appended.some((entry, index) => entry.seq !== index + 1)) return;
    const text = JSON.stringify(appended.map((entry) => entry.message));
    if (text.length > MAX_OFFER_CHARS) return;
    const messages = JSON.parse(text) as ThreadMessage['message'][];
    this.#threads.set(
      runId,
      appended.map((entry, index) => ({ ...entry, message: messages[index] as ThreadMessage['message'] })),
    );
    if (this.#threads.size > MAX_OFFERS) {
      const oldest = this.#threads.keys().next();
      if (oldest.done !== true) this.#threads.delete(oldest.value);
    }
  }

  /** The thread offered for the run, once; undefined when none was (or it was dropped). */
  take(runId: string): ThreadMessage[] | undefined {
    const thread = this.#threads.get(runId);
    this.#threads.delete(runId);
    return thread;
  }
}
