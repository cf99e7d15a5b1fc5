import type { Agent } from '../records/agent.js';
import type { CallerClaim } from '../remote-experts/caller-claim.js';

/**
 * Opens an A2A client for a remote expert (docs/interoperability.md#a2a): its card URL and credentials come
 * from the agent's `config.a2a`, and every request it makes passes the egress policy that applies to the
 * agent's owner. The port keeps the runtime free of transports, DNS pinning and header handling. `TClient` is
 * the A2A SDK's client, named by the adapter and the runtime only, so that no SDK type enters core.
 */
export interface RemoteA2AConnector<TClient = unknown> {
  connect(agent: Agent, signal?: AbortSignal): Promise<TClient>;
  /** This server's signed claim of a delegating user; absent (or undefined) without a signing key. */
  callerClaim?(claim: Omit<CallerClaim, 'iss'>): string | undefined;
  close(): void;
}
