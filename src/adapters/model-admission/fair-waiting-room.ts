import { randomUUID } from 'node:crypto';
import {
  ProviderPausedError,
  type AdmissionGrant,
  type AdmissionTicket,
  type ModelAdmission,
} from '../../core/ports/model-admission.js';
import type { AdmissionCapacity, Refusal } from './admission-capacity.js';

/** A pause longer than the ticket sits out: the call is refused instead of queued. */
function pausedTooLong(
  ticket: AdmissionTicket,
  result: { taken: true } | Refusal,
): ProviderPausedError | undefined {
  if (result.taken || result.pausedForMs === undefined || ticket.maxPauseMs === undefined) return undefined;
  return result.pausedForMs > ticket.maxPauseMs
    ? new ProviderPausedError(ticket.provider, result.pausedForMs)
    : undefined;
}

interface Waiter {
  ticket: AdmissionTicket;
  permit: string;
  enqueuedAt: number;
  signal: AbortSignal;
  resolve: (grant: AdmissionGrant) => void;
  reject: (reason: unknown) => void;
  onAbort: () => void;
}

/** The calls of one provider waiting for their turn: a queue per user, users taken in rotation. */
interface ProviderLine {
  byUser: Map<string, Waiter[]>;
  /** Users with waiters, in the order their turns come. */
  rotation: string[];
  pumping: boolean;
  again: boolean;
  timer: NodeJS.Timeout | undefined;
}

/**
 * A `ModelAdmission` over any `AdmissionCapacity` (docs/model-calls.md): a call goes at once when nobody of
 * its provider waits and the capacity takes it; otherwise it queues behind its own user's earlier calls, and
 * users are served round-robin: after a user's call is admitted, the next admission tries the next user
 * first. So one user's fan-out of a hundred calls delays another user's single call by at most one call per
 * other waiting user, not by the whole fan-out. `pollMs` re-tries waiting lines that nothing woke (a
 * release in a process that died, a lost notification).
 */
export function createFairWaitingRoom(
  capacity: AdmissionCapacity,
  options: { pollMs?: number } = {},
): ModelAdmission {
  const lines = new Map<string, ProviderLine>();
  let closed = false;

  const lineOf = (provider: string): ProviderLine => {
    let line = lines.get(provider);
    if (!line) {
      line = { byUser: new Map(), rotation: [], pumping: false, again: false, timer: undefined };
      lines.set(provider, line);
    }
    return line;
  };

  const remove = (line: ProviderLine, waiter: Waiter): void => {
    const queue = line.byUser.get(waiter.ticket.userId);
    if (!queue) return;
    const index = queue.indexOf(waiter);
    if (index >= 0) queue.splice(index, 1);
    if (queue.length === 0) {
      line.byUser.delete(waiter.ticket.userId);
      line.rotation = line.rotation.filter((user) => user !== waiter.ticket.userId);
    }
  };

  const grantFor = (ticket: AdmissionTicket, permit: string, waitedMs: number): AdmissionGrant => {
    let released = false;
    return {
      waitedMs,
      async release(usedTokens) {
        if (released) return;
        released = true;
        try {
          await capacity.give(ticket, permit, usedTokens);
        } finally {
          pump(ticket.provider);
        }
      },
    };
  };

  /** Admits what the capacity takes, one user at a time in rotation, until nothing more fits. */
  const pump = (provider: string): void => {
    const line = lines.get(provider);
    if (!line || closed) return;
    if (line.pumping) {
      line.again = true;
      return;
    }
    line.pumping = true;
    void drain(provider, line).finally(() => {
      line.pumping = false;
      if (line.again) pump(provider);
      else if (line.rotation.length === 0) lines.delete(provider);
    });
  };

  const drain = async (provider: string, line: ProviderLine): Promise<void> => {
    line.again = false;
    let soonest: number | undefined;
    round: while (line.rotation.length > 0 && !closed) {
      soonest = undefined;
      for (const user of [...line.rotation]) {
        const waiter = line.byUser.get(user)?.[0];
        if (!waiter) continue;
        let result: Awaited<ReturnType<AdmissionCapacity['take']>>;
        try {
          result = await capacity.take(waiter.ticket, waiter.permit);
        } catch (error) {
          // The store failed (Redis down): the call fails rather than waiting for a store that may not return.
          remove(line, waiter);
          waiter.signal.removeEventListener('abort', waiter.onAbort);
          waiter.reject(error);
          continue round;
        }
        const refused = pausedTooLong(waiter.ticket, result);
        if (refused) {
          remove(line, waiter);
          waiter.signal.removeEventListener('abort', waiter.onAbort);
          waiter.reject(refused);
          continue round;
        }
        if (result.taken) {
          if (waiter.signal.aborted) {
            // Aborted while its take was in flight: its reject already ran; hand the place straight back.
            await capacity.give(waiter.ticket, waiter.permit, 0);
            continue round;
          }
          remove(line, waiter);
          waiter.signal.removeEventListener('abort', waiter.onAbort);
          // The next turn starts after this user: one with more calls waiting goes to the back.
          if (line.byUser.has(user))
            line.rotation = [...line.rotation.filter((other) => other !== user), user];
          waiter.resolve(grantFor(waiter.ticket, waiter.permit, Date.now() - waiter.enqueuedAt));
          continue round;
        }
        if (result.retryInMs !== undefined)
          soonest = soonest === undefined ? result.retryInMs : Math.min(soonest, result.retryInMs);
        if (result.providerWide) break;
      }
      break;
    }
    if (line.timer) clearTimeout(line.timer);
    line.timer = undefined;
    if (line.rotation.length > 0 && !closed) {
      const poll = options.pollMs ?? Number.POSITIVE_INFINITY;
      const delay = Math.min(soonest ?? poll, poll);
      if (Number.isFinite(delay)) {
        line.timer = setTimeout(
          () => {
            line.timer = undefined;
            pump(provider);
          },
          Math.max(1, delay),
        );
        line.timer.unref();
      }
    }
  };

  capacity.onChange((provider) => pump(provider));

  return {
    async admit(ticket, signal) {
      signal.throwIfAborted();
      if (closed) throw new Error('model admission is closed');
      const permit = randomUUID();
      const line = lines.get(ticket.provider);
      // Nobody of this provider waits: no queue to respect, so the call may take its place straight away.
      if (!line || line.rotation.length === 0) {
        const result = await capacity.take(ticket, permit);
        const refused = pausedTooLong(ticket, result);
        if (refused) throw refused;
        if (result.taken) {
          if (signal.aborted) {
            await capacity.give(ticket, permit, 0);
            signal.throwIfAborted();
          }
          return grantFor(ticket, permit, 0);
        }
      }
      signal.throwIfAborted();
      const enqueuedAt = Date.now();
      return new Promise<AdmissionGrant>((resolve, reject) => {
        const target = lineOf(ticket.provider);
        const waiter: Waiter = {
          ticket,
          permit,
          enqueuedAt,
          signal,
          resolve,
          reject,
          onAbort: () => {
            remove(target, waiter);
            // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason is the aborter's choice and must pass through unchanged
            reject(signal.reason);
            // Others may fit now that this one no longer waits in front of them.
            pump(ticket.provider);
          },
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
        const queue = target.byUser.get(ticket.userId);
        if (queue) queue.push(waiter);
        else {
          target.byUser.set(ticket.userId, [waiter]);
          target.rotation.push(ticket.userId);
        }
        pump(ticket.provider);
      });
    },
    async pause(provider, untilMs) {
      await capacity.pause(provider, untilMs);
      pump(provider);
    },
    async close() {
      closed = true;
      for (const line of lines.values()) {
        if (line.timer) clearTimeout(line.timer);
        for (const queue of line.byUser.values()) {
          for (const waiter of queue) {
            waiter.signal.removeEventListener('abort', waiter.onAbort);
            waiter.reject(new Error('model admission is closed'));
          }
        }
      }
      lines.clear();
      await capacity.close();
    },
  };
}
