import type { ModelAdmission } from '../../../core/ports/model-admission.js';
import { limitsFor, type ModelLimits } from '../../../core/model-limits/model-limits.js';
import {
  chargeOf,
  fullBucket,
  msUntil,
  refilled,
  type TokenBucket,
} from '../../../core/model-limits/token-bucket.js';
import type { AdmissionCapacity, Refusal } from '../admission-capacity.js';
import { createFairWaitingRoom } from '../fair-waiting-room.js';

interface KeyState {
  inFlight: number;
  requests?: TokenBucket;
  tokens?: TokenBucket;
}

interface Held {
  keys: { key: string; tokensPerMinute?: number; charged: number }[];
}

/** The limits kept in this process's memory: exact for one process (the embedded default). */
export function createMemoryModelAdmission(options: {
  limits: ModelLimits;
  now?: () => number;
}): ModelAdmission {
  const now = options.now ?? Date.now;
  const states = new Map<string, KeyState>();
  const held = new Map<string, Held>();
  const pausedUntil = new Map<string, number>();

  const stateOf = (key: string): KeyState => {
    let state = states.get(key);
    if (!state) {
      state = { inFlight: 0 };
      states.set(key, state);
    }
    return state;
  };

  const capacity: AdmissionCapacity = {
    take(ticket, permit) {
      const at = now();
      const pause = pausedUntil.get(ticket.provider) ?? 0;
      if (pause > at) {
        return Promise.resolve({
          taken: false,
          retryInMs: pause - at,
          providerWide: true,
          pausedForMs: pause - at,
        });
      }
      if (pause !== 0) pausedUntil.delete(ticket.provider);
      const applied = limitsFor(options.limits, ticket.provider, ticket.model);
      const needsTokens = applied.some(({ limit }) => limit.tokens_per_minute !== undefined);
      const tokens = needsTokens ? ticket.tokens() : 0;
      let refusal: Refusal | undefined;
      const refuse = (providerWide: boolean, retryInMs?: number) => {
        const wait =
          retryInMs === undefined ? refusal?.retryInMs : Math.max(retryInMs, refusal?.retryInMs ?? 0);
        refusal = {
          taken: false,
          ...(wait !== undefined ? { retryInMs: wait } : {}),
          providerWide: providerWide || (refusal?.providerWide ?? false),
        };
      };
      for (const { key, limit } of applied) {
        const state = stateOf(key);
        const providerWide = key === ticket.provider;
        if (limit.concurrency !== undefined && state.inFlight >= limit.concurrency) refuse(providerWide);
        if (limit.requests_per_minute !== undefined) {
          const perMinute = limit.requests_per_minute;
          state.requests = refilled(state.requests ?? fullBucket(perMinute, at), perMinute, at);
          const wait = msUntil(state.requests, 1, perMinute);
          if (wait > 0) refuse(providerWide, wait);
        }
        if (limit.tokens_per_minute !== undefined) {
          const perMinute = limit.tokens_per_minute;
          state.tokens = refilled(state.tokens ?? fullBucket(perMinute, at), perMinute, at);
          const wait = msUntil(state.tokens, chargeOf(tokens, perMinute), perMinute);
          if (wait > 0) refuse(providerWide, wait);
        }
      }
      if (refusal) return Promise.resolve(refusal);
      const taken: Held = { keys: [] };
      for (const { key, limit } of applied) {
        const state = stateOf(key);
        state.inFlight += 1;
        if (state.requests) state.requests.level -= 1;
        const perMinute = limit.tokens_per_minute;
        const charged = perMinute !== undefined ? chargeOf(tokens, perMinute) : 0;
        if (state.tokens) state.tokens.level -= charged;
        taken.keys.push({ key, ...(perMinute !== undefined ? { tokensPerMinute: perMinute } : {}), charged });
      }
      held.set(permit, taken);
      return Promise.resolve({ taken: true });
    },
    give(_ticket, permit, usedTokens) {
      const taken = held.get(permit);
      held.delete(permit);
      for (const { key, tokensPerMinute, charged } of taken?.keys ?? []) {
        const state = stateOf(key);
        state.inFlight = Math.max(0, state.inFlight - 1);
        if (usedTokens !== undefined && tokensPerMinute !== undefined && state.tokens) {
          const at = now();
          const bucket = refilled(state.tokens, tokensPerMinute, at);
          // What the call really used replaces the estimate; an overdraft is paid back by the refill.
          state.tokens = { ...bucket, level: Math.min(tokensPerMinute, bucket.level + charged - usedTokens) };
        }
      }
      return Promise.resolve();
    },
    pause(provider, untilMs) {
      if ((pausedUntil.get(provider) ?? 0) < untilMs) pausedUntil.set(provider, untilMs);
      return Promise.resolve();
    },
    onChange() {
      // One process: every change happens here, through the waiting room itself.
    },
    close: () => Promise.resolve(),
  };
  return createFairWaitingRoom(capacity);
}
