import type { Run } from '../../../core/records/run.js';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import type { RunContext } from '../execute/load-run-context.js';

/** Enough for every run a busy process starts before its executor claims them; older offers are dropped. */
const MAX_OFFERS = 512;
/** A larger first message (a long paste, attachments) is read back instead of held: offers stay small. */
const MAX_OFFER_CHARS = 64 * 1024;

/** What the creator of a run hands to the run's first attempt. */
export interface RunHandoff {
  /** The run's whole thread: only its first message. */
  thread?: ThreadMessage[];
  /** The records the attempt works with, as the creating transaction read or wrote them. */
  context?: RunContext;
}

/**
 * What the code that created a run already holds, handed to this process's executor, so the run's first
 * attempt does not read back what its creator read and wrote a moment before:
 * - the thread, only when it holds nothing but the run's first message (it took seq 1: a new chat, a new
 *   subagent or delegation thread), which nobody else can add to while the run is active (one active run per
 *   thread); a copy as a read would return it (JSON round trip), never the creator's objects;
 * - the attempt's context, when the creator read or wrote every part of it in the transaction that created
 *   the run (a chat message: conversation, agent, owner, project, and the ledger it opened; a new subagent
 *   child: its agent, user and project read with its parent, the conversation and ledger it created), so it
 *   is as fresh as a read at the claim a moment later. Never its creator's attempt's records, which may be
 *   older (an edited or revoked subagent applies to the next child).
 * Taken once, by the attempt that claims the run; a run claimed by another process, or resumed after a
 * restart, reads everything as always.
 */
export class RunHandoffs {
  readonly #offers = new Map<string, RunHandoff>();

  /** Offers `appended`, the messages that created the run (kept if they are its whole thread), and `context`. */
  offer(runId: string, appended: readonly ThreadMessage[], context?: RunContext): void {
    const handoff: RunHandoff = {};
    const thread = firstThread(appended);
    if (thread) handoff.thread = thread;
    if (context) handoff.context = context;
    if (!handoff.thread && !handoff.context) return;
    this.#offers.set(runId, handoff);
    if (this.#offers.size > MAX_OFFERS) {
      const oldest = this.#offers.keys().next();
      if (oldest.done !== true) this.#offers.delete(oldest.value);
    }
  }

  /** Whether an offer for the run holds its attempt's context (then a claim need not read it). */
  hasContext(runId: string): boolean {
    return this.#offers.get(runId)?.context !== undefined;
  }

  /**
   * What was offered for the run, once; undefined when nothing was (or it was dropped). Only its first
   * attempt gets it: a later one resumes from what the run wrote since. Either way the offer is gone.
   */
  take(run: Pick<Run, 'id' | 'attempt'>): RunHandoff | undefined {
    const handoff = this.#offers.get(run.id);
    this.#offers.delete(run.id);
    return run.attempt === 1 ? handoff : undefined;
  }
}

function firstThread(appended: readonly ThreadMessage[]): ThreadMessage[] | undefined {
  if (appended.length === 0 || appended.some((entry, index) => entry.seq !== index + 1)) return undefined;
  const text = JSON.stringify(appended.map((entry) => entry.message));
  if (text.length > MAX_OFFER_CHARS) return undefined;
  const messages = JSON.parse(text) as ThreadMessage['message'][];
  return appended.map((entry, index) => ({ ...entry, message: messages[index] as ThreadMessage['message'] }));
}
