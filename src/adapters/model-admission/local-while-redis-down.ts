import {
  ProviderPausedError,
  type AdmissionGrant,
  type AdmissionTicket,
  type ModelAdmission,
} from '../../core/ports/model-admission.js';

/*
 * The providers' limits are a throttle, not a lock: while Redis is away (docs/scale-out.md, "Outages"), a model
 * call must not fail because the shared count cannot be read. The Redis admission answers only a grant, the
 * signal's reason or ProviderPausedError; anything else it throws is Redis failing, and the call is admitted
 * by this process's own limits instead (the same limits, counted per process for the outage). Pauses go to
 * both, so a provider's "wait" holds here whichever way the next call is admitted.
 */
export function localWhileRedisDown(
  shared: ModelAdmission,
  local: ModelAdmission,
  onRedisError: (error: unknown) => void,
): ModelAdmission {
  return {
    async admit(ticket: AdmissionTicket, signal: AbortSignal): Promise<AdmissionGrant> {
      try {
        const grant = await shared.admit(ticket, signal);
        return {
          waitedMs: grant.waitedMs,
          // A release Redis cannot take is given back by the place's lease running out.
          release: (usedTokens) => grant.release(usedTokens).catch(onRedisError),
        };
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (error instanceof ProviderPausedError) throw error;
        onRedisError(error);
        return local.admit(ticket, signal);
      }
    },
    async pause(provider: string, untilMs: number): Promise<void> {
      await local.pause(provider, untilMs);
      await shared.pause(provider, untilMs).catch(onRedisError);
    },
    async close(): Promise<void> {
      await Promise.all([shared.close(), local.close()]);
    },
  };
}
