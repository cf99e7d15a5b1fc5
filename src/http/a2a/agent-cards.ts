import { AgentCard, type AgentSkill } from '@a2a-js/sdk';
import type { Agent } from '../../core/records/agent.js';
import { DELEGATION_EXTENSION_URI } from '../../core/remote-experts/delegation-context.js';
import { API_VERSION } from '../openapi.js';

/** The extension whose params list every expert's own card, on the server card (README "A2A"). */
export const EXPERTS_EXTENSION_URI = 'urn:troupe:a2a:experts:v1';
export const SECURITY_SCHEME = 'troupe_token';
const INPUT_MODES = ['text/plain', 'application/json'];

/** Troupe-to-Troupe delegation (README "Remote A2A experts"): optional, other clients simply omit it. */
const DELEGATION_EXTENSION = {
  uri: DELEGATION_EXTENSION_URI,
  description:
    'Message metadata under this key: budget {tokens, model_calls, tool_calls} and deadline (ISO 8601) the task ' +
    "must stay within, traceparent, and caller (a JWS signed by the delegating server); the task's metadata " +
    'and its last status update carry the usage under the same key',
  required: false,
  params: undefined,
};
const OUTPUT_MODES = ['text/plain'];

export function expertEndpoint(origin: string, agent: Agent): string {
  return `${origin}/a2a/${agent.slug}`;
}

export function expertCardUrl(origin: string, agent: Agent): string {
  return `${expertEndpoint(origin, agent)}/.well-known/agent-card.json`;
}

function skillOf(agent: Agent): AgentSkill {
  return {
    id: agent.slug,
    name: agent.name,
    // Required by A2A, and ProtoJSON leaves an empty string out: never empty.
    description: agent.delegation_brief || agent.description || agent.name,
    tags: ['expert'],
    examples: [],
    inputModes: INPUT_MODES,
    outputModes: OUTPUT_MODES,
    securityRequirements: [],
  };
}

function baseCard(
  origin: string,
): Omit<AgentCard, 'name' | 'description' | 'supportedInterfaces' | 'skills' | 'capabilities'> {
  return {
    provider: { organization: 'Troupe', url: origin },
    version: API_VERSION,
    securitySchemes: {
      [SECURITY_SCHEME]: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            scheme: 'Bearer',
            bearerFormat: 'Troupe API token',
            description: 'A Troupe API token (`troupe tokens create`); every task runs as its user.',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { [SECURITY_SCHEME]: { list: [] } } }],
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    signatures: [],
  };
}

/** One published expert as an A2A agent: its own JSON-RPC endpoint, for A2A 1.0 and the 0.3 method names. */
export function expertCard(origin: string, agent: Agent): AgentCard {
  const url = expertEndpoint(origin, agent);
  return {
    ...baseCard(origin),
    name: agent.name,
    description: agent.description || agent.delegation_brief || agent.name,
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ],
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [DELEGATION_EXTENSION],
    },
    skills: [skillOf(agent)],
  };
}

/**
 * The server's card: one skill per expert. The public one at `/.well-known/agent-card.json` lists the
 * public experts; the extended one (`GetExtendedAgentCard`, authenticated) every expert the caller may
 * use. Its endpoint `/a2a` serves them all, `params.tenant` naming the expert (A2A's body-based routing);
 * the experts extension points at each expert's own card for clients that prefer one agent per card.
 */
export function serverCard(origin: string, experts: readonly Agent[]): AgentCard {
  return {
    ...baseCard(origin),
    name: 'Troupe',
    description:
      'The experts published on this Troupe server. Each skill is one expert: send to this endpoint with ' +
      "params.tenant set to the skill id, or use the expert's own card (see the experts extension).",
    supportedInterfaces: [
      { url: `${origin}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
    ],
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: true,
      extensions: [
        DELEGATION_EXTENSION,
        {
          uri: EXPERTS_EXTENSION_URI,
          description: 'The agent card and JSON-RPC endpoint of every expert listed as a skill',
          required: false,
          params: {
            experts: experts.map((agent) => ({
              id: agent.slug,
              name: agent.name,
              card_url: expertCardUrl(origin, agent),
              url: expertEndpoint(origin, agent),
            })),
          },
        },
      ],
    },
    skills: experts.map(skillOf),
  };
}

/** The card as JSON on the wire (ProtoJSON: camelCase, enums by name). */
export function cardJson(card: AgentCard): unknown {
  return AgentCard.toJSON(card);
}
