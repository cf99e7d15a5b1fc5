import type { Client } from '@a2a-js/sdk/client';
import type { Agent } from '../../core/records/agent.js';
import type { CallerClaim } from '../../core/remote-experts/caller-claim.js';

/**
 * Opens an A2A client for a remote expert (SPEC §11): its card URL and credentials come from the agent's
 * `config.a2a`, and every request it makes passes the egress policy that applies to the agent's owner.
 * The port keeps the runtime free of transports, DNS pinning and header handling.
 */
export interface RemoteA2AConnector {
  connect(agent: Agent, signal?: AbortSignal): Promise<Client>;
  /** This server's signed claim of a delegating user; absent (or undefined) without a signing key. */
  callerClaim?(claim: Omit<CallerClaim, 'iss'>): string | undefined;
  close(): void;
}
