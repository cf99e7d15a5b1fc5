import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import type { EgressPolicy } from '../../core/egress/egress-policy.js';
import { TroupeError } from '../../core/errors.js';
import type { Agent } from '../../core/records/agent.js';
import type { A2AIdentitySettings } from '../../a2a-identity-settings.js';
import { signCallerClaim } from '../../core/remote-experts/caller-claim.js';
import type { RemoteA2AConnector } from '../../core/ports/remote-a2a-connector.js';
import { createEgressFetch, type Resolver } from '../egress/create-egress-fetch.js';
import { withCredentials } from './with-credentials.js';

export interface RemoteA2AConnectorOptions {
  /** The egress policy (docs/egress-and-secrets.md) and the agents it binds: those whose owner is not an admin. */
  egress?: {
    policy: EgressPolicy;
    appliesTo(agent: Agent): Promise<boolean>;
    resolve?: Resolver;
  };
  /** This server's key for caller claims (`TROUPE_A2A_SIGNING_KEY`); without it no claim is sent. */
  signer?: A2AIdentitySettings['signer'];
}

/** A2A clients from the official SDK, for A2A 1.0 and 0.3 agents over JSON-RPC or HTTP+JSON. */
export function createRemoteA2AConnector(
  options: RemoteA2AConnectorOptions = {},
): RemoteA2AConnector<Client> {
  const guarded = options.egress
    ? createEgressFetch({
        policy: options.egress.policy,
        ...(options.egress.resolve ? { resolve: options.egress.resolve } : {}),
      })
    : undefined;
  return {
    async connect(agent: Agent, signal?: AbortSignal): Promise<Client> {
      const remote = agent.config.a2a;
      if (!remote) {
        throw new TroupeError(
          'remote_expert_unavailable',
          `Agent "${agent.slug}" has no remote A2A agent configured`,
        );
      }
      const base = guarded && (await options.egress?.appliesTo(agent)) ? guarded.fetch : fetch;
      const signalled: typeof fetch = (input, init) =>
        base(input, signal && !init?.signal ? { ...init, signal } : init);
      const fetchImpl = withCredentials(signalled, remote.card_url, remote.headers ?? {});
      const legacyCompat = { enabled: true };
      const factory = new ClientFactory({
        transports: [
          new JsonRpcTransportFactory({ fetchImpl, legacyCompat }),
          new RestTransportFactory({ fetchImpl, legacyCompat }),
        ],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      });
      // The card URL is complete: no well-known path is appended to it.
      return factory.createFromUrl(remote.card_url, '');
    },
    callerClaim(claim) {
      const { signer } = options;
      return signer ? signCallerClaim(signer.issuer, signer.key, claim) : undefined;
    },
    close() {
      guarded?.close();
    },
  };
}
