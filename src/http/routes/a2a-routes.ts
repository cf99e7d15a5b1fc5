import type { Agent } from '../../core/records/agent.js';
import type { User } from '../../core/records/user.js';
import { createA2ARequestHandler } from '../../runtime/a2a/a2a-request-handler.js';
import type { A2ADependencies } from '../../runtime/a2a/a2a-task-access.js';
import { TroupeError, isTroupeError } from '../../core/errors.js';
import {
  getPublishedExpert,
  listPublicExperts,
  listPublishedExperts,
} from '../../runtime/a2a/published-experts.js';
import { cardJson, expertCard, serverCard } from '../a2a/agent-cards.js';
import { answerJsonRpc } from '../a2a/json-rpc-endpoint.js';
import { requestOrigin } from '../a2a/request-origin.js';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { Logger } from '../logger.js';
import type { RouteRegistry } from '../route-registry.js';
import { DEFAULT_SSE_HEARTBEAT_MS } from './run-event-stream-response.js';
import { a2aStreamFrameSchema } from '../response-schemas/a2a-records.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

/** A card fetched with a token is that caller's (it may show a private expert): caches must not share it. */
const PRIVATE_CARD_CACHE = 'private, max-age=60';
const PUBLIC_CARD_CACHE = 'public, max-age=60';

/**
 * A2A 1.0 (docs/interoperability.md, README "A2A"): every published expert the caller may use is an A2A agent with its
 * own card and JSON-RPC endpoint; the server card lists them all. Outside `/api` because A2A clients look
 * for `/.well-known/agent-card.json` at the root, but authenticated and throttled like every API route.
 */
export function registerA2ARoutes(registry: RouteRegistry, deps: AppDependencies, logger: Logger): void {
  const services: A2ADependencies = {
    storage: deps.storage,
    agents: deps.agents,
    conversations: deps.conversations,
    runs: deps.runs,
    trustedCallers: deps.config.a2aIdentity.trustedCallers,
    onInternalError: (error) =>
      logger.error('a2a request failed', {
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
  };
  const origin = (c: Parameters<typeof requestOrigin>[0]) => requestOrigin(c, deps.config.trustProxy);
  const heartbeatMs = deps.sseHeartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS;

  const serve = (c: Parameters<typeof answerJsonRpc>[0]['c'], actor: User, expert: Agent | undefined) => {
    const card = expert ? expertCard(origin(c), expert) : serverCard(origin(c), []);
    return answerJsonRpc({
      c,
      actor,
      maxBodyBytes: deps.config.maxBodyBytes,
      heartbeatMs,
      versions: card.supportedInterfaces.map((entry) => entry.protocolVersion),
      handler: (signal) =>
        createA2ARequestHandler(services, {
          actor,
          expert,
          card,
          signal,
          origin: origin(c),
          // Only the server card has an extended version: every expert the caller may use.
          extendedCard: expert
            ? undefined
            : async () => serverCard(origin(c), await listPublishedExperts(deps.agents, actor)),
        }),
    });
  };

  registry.addPublic({
    method: 'get',
    path: '/.well-known/agent-card.json',

    response: RESPONSES.agentCard,
    summary: 'A2A server card (public): one skill per public expert',
    description:
      'Its endpoint `POST /a2a` takes `params.tenant` = a skill id; the experts extension lists each expert card. ' +
      'Private and shared experts are on the extended card (`GetExtendedAgentCard` on `POST /a2a`, with a token).',
    tag: 'a2a',
    handler: async ({ c }) => {
      c.header('Cache-Control', PUBLIC_CARD_CACHE);
      return c.json(cardJson(serverCard(origin(c), await listPublicExperts(deps.agents))));
    },
  });

  registry.add({
    method: 'post',
    path: '/a2a',

    response: RESPONSES.a2aResponse,
    eventSchema: a2aStreamFrameSchema,
    summary: 'A2A JSON-RPC endpoint of the whole server (params.tenant names the expert)',
    description: 'JSON-RPC 2.0 body (A2A 1.0 method names); answers JSON, or SSE for streaming methods.',
    tag: 'a2a',
    access: 'user',
    handler: ({ c, actor }) => serve(c, actor, undefined),
  });

  registry.addPublic({
    method: 'get',
    path: '/a2a/{id}/.well-known/agent-card.json',

    response: RESPONSES.agentCard,
    summary: "A2A agent card of one published expert (clients resolve it from the base URL '/a2a/{id}/')",
    description:
      "Without a token only a public expert's card is served (anything else is 401, so probing learns " +
      'nothing); with a token, the card of any published expert the token may use.',
    tag: 'a2a',
    optionalAuth: true,
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => {
      let expert: Agent;
      try {
        expert = await getPublishedExpert(deps.agents, actor, params.id);
      } catch (error) {
        if (actor !== undefined || !isTroupeError(error, 'agent_not_found')) throw error;
        throw new TroupeError(
          'unauthorized',
          'Only public experts have a card without a token; send "Authorization: Bearer <token>"',
        );
      }
      c.header('Cache-Control', actor ? PRIVATE_CARD_CACHE : PUBLIC_CARD_CACHE);
      c.header('Vary', 'Authorization');
      return c.json(cardJson(expertCard(origin(c), expert)));
    },
  });

  registry.add({
    method: 'post',
    path: '/a2a/{id}',

    response: RESPONSES.a2aResponse,
    eventSchema: a2aStreamFrameSchema,
    summary: 'A2A JSON-RPC endpoint of one published expert (1.0 and 0.3 method names)',
    description:
      'JSON-RPC 2.0 body: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask ' +
      '(and message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe); answers JSON, or SSE for streams.',
    tag: 'a2a',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      serve(c, actor, await getPublishedExpert(deps.agents, actor, params.id)),
  });
}
