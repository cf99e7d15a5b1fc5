import { Redis, type RedisOptions } from 'ioredis';
import { TroupeError } from '../../../core/errors.js';
import { limitsFor, type ModelLimits } from '../../../core/model-limits/model-limits.js';
import type { AdmissionTicket, ModelAdmission } from '../../../core/ports/model-admission.js';
import { redactUrl } from '../../../core/redact-url.js';
import { createRedisSubscriber } from '../../redis/create-redis-subscriber.js';
import { endRedisConnection } from '../../redis/end-redis-connection.js';
import type { AdmissionCapacity } from '../admission-capacity.js';
import { createFairWaitingRoom } from '../fair-waiting-room.js';
import { GIVE, PAUSE, RENEW, TAKE } from './admission-scripts.js';

export interface RedisModelAdmissionOptions {
  url: string;
  limits: ModelLimits;
  /** Prefix of every key and channel; default `troupe:`. */
  keyPrefix?: string;
  /** How long a place stays held without renewal (a process that died gives it back then); default 60 s. */
  leaseMs?: number;
  /** How often waiting calls try again when nothing woke them; default 1 s. */
  pollMs?: number;
  onError?: (error: unknown) => void;
  redisOptions?: RedisOptions;
}

interface Scripts {
  troupeAdmissionTake(numberOfKeys: number, ...args: (string | number)[]): Promise<number[]>;
  troupeAdmissionGive(numberOfKeys: number, ...args: (string | number)[]): Promise<number>;
  troupeAdmissionRenew(numberOfKeys: number, ...args: (string | number)[]): Promise<number>;
  troupeAdmissionPause(numberOfKeys: number, ...args: (string | number)[]): Promise<number>;
}

interface Held {
  ticket: AdmissionTicket;
  inflightKeys: string[];
  charges: { tokensKey: string; inflightKey: string; tokensPerMinute: number; charged: number }[];
}

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The limits kept in Redis, shared by every process of a scale-out deployment: a call's place, its request
 * and its tokens are taken atomically by one script, and a release or a pause is published so waiting calls
 * in every process try again at once. Fairness between users holds within each process's queue (see
 * README "Real providers").
 */
export async function createRedisModelAdmission(
  options: RedisModelAdmissionOptions,
): Promise<ModelAdmission> {
  const prefix = `${options.keyPrefix ?? 'troupe:'}models:`;
  const channel = `${prefix}changes`;
  const leaseMs = options.leaseMs ?? 60_000;
  const report = (error: unknown) => {
    try {
      options.onError?.(error);
    } catch {
      // Nowhere left to report the reporter's own failure.
    }
  };
  const command = new Redis(options.url, { maxRetriesPerRequest: 2, ...options.redisOptions });
  const subscriber = createRedisSubscriber(options.url, options.redisOptions, report);
  for (const connection of [command, subscriber.connection]) connection.on('error', report);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all([command.ping(), subscriber.subscribe(channel)]),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer in ${CONNECT_TIMEOUT_MS} ms`)),
          CONNECT_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    command.disconnect();
    await subscriber.close();
    throw new TroupeError(
      'config_invalid',
      `Cannot reach Redis at ${redactUrl(options.url, 'Redis URL')}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
  command.defineCommand('troupeAdmissionTake', { lua: TAKE });
  command.defineCommand('troupeAdmissionGive', { lua: GIVE });
  command.defineCommand('troupeAdmissionRenew', { lua: RENEW });
  command.defineCommand('troupeAdmissionPause', { lua: PAUSE });
  const scripts = command as unknown as Scripts;

  const limitKey = (key: string) => `${prefix}limit:${encodeURIComponent(key)}`;
  const pauseKey = (provider: string) => `${prefix}pause:${encodeURIComponent(provider)}`;
  const held = new Map<string, Held>();
  const listeners: ((provider: string) => void)[] = [];
  /*
   * Providers a call under no limit may go to without asking Redis: the last TAKE found them unpaused. A call
   * under no limit only checks the provider's pause, and a pause is always announced on the channel (as is any
   * release), so a provider leaves this set on any message about it, and every provider does when the
   * subscription was interrupted (announcements may have been missed). Saves a round trip per model call.
   */
  const knownUnpaused = new Set<string>();
  // Bumped by every announcement: a TAKE whose answer crossed one (a pause announced before the answer came
  // back) proves nothing about now.
  let announcements = 0;
  subscriber.connection.on('message', (from: string, provider: string) => {
    if (from !== channel) return;
    announcements += 1;
    knownUnpaused.delete(provider);
    for (const listener of listeners) listener(provider);
  });
  subscriber.connection.on('close', () => {
    announcements += 1;
    knownUnpaused.clear();
  });

  // Places held longer than a lease (a call streaming for minutes) are renewed, all in one round.
  const renewal = setInterval(
    () => {
      for (const [permit, entry] of held) {
        if (entry.inflightKeys.length === 0) continue;
        scripts
          .troupeAdmissionRenew(entry.inflightKeys.length, ...entry.inflightKeys, permit, leaseMs)
          .catch(report);
      }
    },
    Math.max(1000, Math.floor(leaseMs / 3)),
  );
  renewal.unref();

  const capacity: AdmissionCapacity = {
    async take(ticket, permit) {
      const applied = limitsFor(options.limits, ticket.provider, ticket.model);
      const unlimited = applied.length === 0;
      if (unlimited && knownUnpaused.has(ticket.provider) && subscriber.live) {
        held.set(permit, { ticket, inflightKeys: [], charges: [] });
        return { taken: true };
      }
      const announcedBefore = announcements;
      // Only a TAKE that ran wholly while the channel was subscribed would have heard a pause announced meanwhile.
      const heardThroughout = subscriber.live;
      const needsTokens = applied.some(({ limit }) => limit.tokens_per_minute !== undefined);
      const tokens = needsTokens ? Math.max(0, Math.ceil(ticket.tokens())) : 0;
      const keys = [pauseKey(ticket.provider)];
      const args: (string | number)[] = [permit, leaseMs, tokens];
      for (const { key, limit } of applied) {
        const base = limitKey(key);
        keys.push(`${base}:inflight`, `${base}:requests`, `${base}:tokens`);
        args.push(
          limit.concurrency ?? 0,
          limit.requests_per_minute ?? 0,
          limit.tokens_per_minute ?? 0,
          key === ticket.provider ? 1 : 0,
        );
      }
      const [taken = 0, wait = -1, wide = 0, paused = 0] = await scripts.troupeAdmissionTake(
        keys.length,
        ...keys,
        ...args,
      );
      if (unlimited && taken === 1 && heardThroughout && announcements === announcedBefore) {
        knownUnpaused.add(ticket.provider);
      }
      if (taken !== 1) {
        return {
          taken: false,
          ...(wait >= 0 ? { retryInMs: wait } : {}),
          providerWide: wide === 1,
          ...(paused === 1 ? { pausedForMs: wait } : {}),
        };
      }
      held.set(permit, {
        ticket,
        inflightKeys: applied
          .filter(({ limit }) => limit.concurrency !== undefined)
          .map(({ key }) => `${limitKey(key)}:inflight`),
        charges: applied.map(({ key, limit }) => ({
          inflightKey: `${limitKey(key)}:inflight`,
          tokensKey: `${limitKey(key)}:tokens`,
          tokensPerMinute: limit.tokens_per_minute ?? 0,
          charged: limit.tokens_per_minute !== undefined ? Math.min(tokens, limit.tokens_per_minute) : 0,
        })),
      });
      return { taken: true };
    },
    async give(ticket, permit, usedTokens) {
      const entry = held.get(permit);
      held.delete(permit);
      // A call under no limit held no place and was charged nothing: there is nothing to give back, and no
      // waiting call anywhere can be let in by its end (a round trip and a publish per model call saved).
      if (entry?.charges.length === 0) return;
      const keys: string[] = [];
      const args: (string | number)[] = [
        permit,
        usedTokens === undefined ? -1 : Math.max(0, Math.ceil(usedTokens)),
        channel,
        ticket.provider,
      ];
      for (const charge of entry?.charges ?? []) {
        keys.push(charge.inflightKey, charge.tokensKey);
        args.push(charge.tokensPerMinute, charge.charged);
      }
      await scripts.troupeAdmissionGive(keys.length, ...keys, ...args);
    },
    async pause(provider, untilMs) {
      knownUnpaused.delete(provider);
      const inMs = Math.max(0, Math.ceil(untilMs - Date.now()));
      await scripts.troupeAdmissionPause(1, pauseKey(provider), inMs, channel, provider);
    },
    onChange(listener) {
      listeners.push(listener);
    },
    async close() {
      clearInterval(renewal);
      await Promise.all([endRedisConnection(command), subscriber.close()]);
    },
  };
  return createFairWaitingRoom(capacity, { pollMs: options.pollMs ?? 1000 });
}
