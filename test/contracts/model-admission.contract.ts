import { afterEach, describe, expect, it } from 'vitest';
import type { ModelLimits } from '../../src/core/model-limits/model-limits.js';
import {
  ProviderPausedError,
  type AdmissionGrant,
  type AdmissionTicket,
  type ModelAdmission,
} from '../../src/core/ports/model-admission.js';

/** Every ModelAdmission adapter must pass this suite (in-process, Redis). */
export function describeModelAdmissionContract(
  name: string,
  create: (limits: ModelLimits) => Promise<ModelAdmission>,
): void {
  describe(`ModelAdmission contract: ${name}`, () => {
    const opened: ModelAdmission[] = [];
    const open = async (limits: ModelLimits): Promise<ModelAdmission> => {
      const admission = await create(limits);
      opened.push(admission);
      return admission;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((admission) => admission.close()));
    });

    const ticket = (
      userId = 'usr_a',
      model = 'gpt-a',
      tokens = 10,
      provider = 'openai',
    ): AdmissionTicket => ({
      provider,
      model,
      userId,
      tokens: () => tokens,
    });
    const never = new AbortController().signal;

    /** The grant once it comes, and whether it came yet. */
    function track(promise: Promise<AdmissionGrant>) {
      const state: { grant?: AdmissionGrant; error?: unknown; at?: number } = {};
      const settled = promise.then(
        (grant) => {
          state.grant = grant;
          state.at = Date.now();
          return grant;
        },
        (error: unknown) => {
          state.error = error;
          throw error;
        },
      );
      settled.catch(() => undefined);
      return { state, settled };
    }
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    it('admits at once when no limit applies', async () => {
      const admission = await open({ anthropic: { concurrency: 1 } });
      const grants = await Promise.all(
        Array.from({ length: 20 }, (_, i) => admission.admit(ticket(`usr_${i}`), never)),
      );
      expect(grants.every((grant) => grant.waitedMs === 0)).toBe(true);
      await Promise.all(grants.map((grant) => grant.release()));
    });

    it("holds calls beyond the provider's concurrency until one is released", async () => {
      const admission = await open({ openai: { concurrency: 2 } });
      const first = await admission.admit(ticket(), never);
      await admission.admit(ticket(), never);
      const third = track(admission.admit(ticket(), never));
      await pause(100);
      expect(third.state.grant).toBeUndefined();
      await first.release();
      const grant = await third.settled;
      expect(grant.waitedMs).toBeGreaterThan(50);
    });

    it("a model's own limit holds that model only", async () => {
      const admission = await open({ openai: { models: { 'gpt-a': { concurrency: 1 } } } });
      const held = await admission.admit(ticket('usr_a', 'gpt-a'), never);
      const sameModel = track(admission.admit(ticket('usr_a', 'gpt-a'), never));
      await admission.admit(ticket('usr_a', 'gpt-b'), never);
      await pause(80);
      expect(sameModel.state.grant).toBeUndefined();
      await held.release();
      await sameModel.settled;
    });

    it('holds requests beyond the requests a minute until the bucket refills', async () => {
      // 12 a minute: the bucket starts full, then one comes back every 5 s. A slow refill, so that emptying
      // the bucket on a loaded machine (12 round trips to Redis) cannot take as long as one refill.
      const admission = await open({ openai: { requests_per_minute: 12 } });
      const emptying = Date.now();
      for (let i = 0; i < 12; i++) await (await admission.admit(ticket(), never)).release();
      const emptied = Date.now() - emptying;
      const next = track(admission.admit(ticket(), never));
      await pause(150);
      expect(next.state.grant).toBeUndefined();
      const grant = await next.settled;
      expect(grant.waitedMs).toBeGreaterThan(5_000 - emptied - 1_000);
    });

    it('counts tokens a minute, and a release puts back what the call did not use', async () => {
      const admission = await open({ openai: { tokens_per_minute: 600 } });
      const big = await admission.admit(ticket('usr_a', 'gpt-a', 600), never);
      const next = track(admission.admit(ticket('usr_a', 'gpt-a', 500), never));
      await pause(100);
      expect(next.state.grant).toBeUndefined();
      // Without the correction the bucket would need 50 s to hold 500 again.
      await big.release(0);
      await next.settled;
      expect(next.state.grant?.waitedMs).toBeLessThan(5_000);
    });

    it('a pause holds every call of the provider until it ends, and no other provider', async () => {
      const admission = await open({});
      await admission.pause('openai', Date.now() + 400);
      // An earlier pause does not shorten it.
      await admission.pause('openai', Date.now() + 50);
      const started = Date.now();
      const other = await admission.admit(ticket('usr_a', 'claude', 10, 'anthropic'), never);
      expect(other.waitedMs).toBe(0);
      const paused = await admission.admit(ticket(), never);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(paused.waitedMs).toBeGreaterThanOrEqual(300);
    });

    it("a pause longer than the call's maxPauseMs refuses it at once, whether or not others wait", async () => {
      const admission = await open({ openai: { concurrency: 1 } });
      await admission.pause('openai', Date.now() + 60_000);
      const refused = (await admission
        .admit({ ...ticket(), maxPauseMs: 1000 }, never)
        .catch((error: unknown) => error)) as ProviderPausedError;
      expect(refused).toBeInstanceOf(ProviderPausedError);
      expect(refused.provider).toBe('openai');
      expect(refused.pausedForMs).toBeGreaterThan(50_000);
      // Queued behind a call that sits the pause out, too.
      const patient = new AbortController();
      const sitting = admission.admit(ticket('usr_b'), patient.signal);
      sitting.catch(() => undefined);
      await expect(admission.admit({ ...ticket('usr_c'), maxPauseMs: 1000 }, never)).rejects.toBeInstanceOf(
        ProviderPausedError,
      );
      patient.abort(new Error('done'));
    });

    it("serves waiting calls round-robin across users: one user's burst does not starve another", async () => {
      const admission = await open({ openai: { concurrency: 1 } });
      let holder = await admission.admit(ticket('usr_a'), never);
      const order: string[] = [];
      const waiting = [
        ...Array.from({ length: 8 }, (_, i) => ({ user: 'usr_a', label: `a${i + 1}` })),
        { user: 'usr_b', label: 'b1' },
        { user: 'usr_c', label: 'c1' },
      ].map(({ user, label }) =>
        admission.admit(ticket(user), never).then((grant) => {
          order.push(label);
          return grant;
        }),
      );
      await pause(50);
      for (const _ of waiting) {
        await holder.release();
        holder = await Promise.race(waiting.filter((_, index) => !order.includes(labelAt(index))));
      }
      await holder.release();
      expect(order.slice(0, 4)).toEqual(['a1', 'b1', 'c1', 'a2']);
      expect(order).toHaveLength(10);

      function labelAt(index: number): string {
        return index < 8 ? `a${index + 1}` : index === 8 ? 'b1' : 'c1';
      }
    });

    it('an abort while waiting rejects with its reason and takes nothing', async () => {
      const admission = await open({ openai: { concurrency: 1 } });
      const held = await admission.admit(ticket(), never);
      const controller = new AbortController();
      const waiting = admission.admit(ticket('usr_b'), controller.signal);
      await pause(30);
      const reason = new Error('cancelled');
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      await held.release();
      const next = await admission.admit(ticket('usr_c'), never);
      expect(next.waitedMs).toBe(0);
      await expect(admission.admit(ticket(), AbortSignal.abort(reason))).rejects.toBe(reason);
    });

    it('a release is counted once, however often it is called', async () => {
      const admission = await open({ openai: { concurrency: 1 } });
      const first = await admission.admit(ticket(), never);
      await first.release();
      await first.release();
      await admission.admit(ticket(), never);
      const third = track(admission.admit(ticket(), never));
      await pause(80);
      expect(third.state.grant).toBeUndefined();
    });
  });
}
