import { TroupeError } from '../../core/errors.js';
import type { Agent } from '../../core/records/agent.js';
import type { Conversation } from '../../core/records/conversation.js';
import { selectByPatterns } from '../../core/tool-patterns.js';
import type { ApiEnvironment } from './agents-api-objects.js';

/** What a session asked for (`environment` of `POST /v1/agents/sessions`), as the HTTP layer checked it. */
export type EnvironmentRequest =
  | { type: 'none' }
  | { type: 'openai_hosted'; [key: string]: unknown }
  | { type: 'self_hosted'; workspace_directory: string; [key: string]: unknown };

/** What a conversation's metadata keeps of a session's environment (`agents_api.environment`). */
export interface StoredEnvironment {
  type: 'none' | 'openai_hosted' | 'self_hosted';
  workspace_directory?: string;
}

/** The key of a conversation's metadata under which the Agents API keeps what a session adds. */
export const AGENTS_API_METADATA_KEY = 'agents_api';

export interface SessionExtras {
  /** Unset for a conversation started elsewhere (console, /api): its runs have the agent's own tools. */
  environment?: StoredEnvironment | undefined;
  metadata: Record<string, string>;
}

/** Whether the agent's runs get `execute` (it names it, or every tool) on a server that has the sandbox. */
export function agentHasSandbox(agent: Agent, executeAvailable: boolean): boolean {
  if (!executeAvailable) return false;
  const tools = agent.config.tools;
  return tools === undefined || selectByPatterns([{ name: 'execute' }], tools).length > 0;
}

/**
 * `none` runs without a sandbox: `execute` is withheld from the session's runs even when the agent has it.
 * Any other type is Troupe's `execute` sandbox over the conversation's project workdir, so it needs an agent
 * that has `execute` on a server where the sandbox works; otherwise `400 environment_not_available`.
 */
export function checkEnvironment(
  request: EnvironmentRequest,
  agent: Agent,
  executeAvailable: boolean,
): StoredEnvironment {
  if (request.type === 'none') return { type: 'none' };
  if (!agentHasSandbox(agent, executeAvailable)) {
    const why = executeAvailable
      ? `agent "${agent.slug}" does not have the execute tool`
      : 'this server has no working execute sandbox';
    throw new TroupeError(
      'environment_not_available',
      `A ${request.type} environment is Troupe's execute sandbox, and ${why}; use {"type": "none"}`,
      { details: { param: 'environment.type' } },
    );
  }
  return request.type === 'self_hosted'
    ? { type: 'self_hosted', workspace_directory: request.workspace_directory }
    : { type: 'openai_hosted' };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The session's extras from its conversation's metadata. */
export function sessionExtras(conversation: Conversation): SessionExtras {
  const stored = conversation.metadata[AGENTS_API_METADATA_KEY];
  const extras = isRecord(stored) ? stored : {};
  const environment = isRecord(extras.environment) ? extras.environment : {};
  const type =
    environment.type === 'openai_hosted' || environment.type === 'self_hosted' || environment.type === 'none'
      ? environment.type
      : undefined;
  const metadata = isRecord(extras.metadata)
    ? Object.fromEntries(
        Object.entries(extras.metadata).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      )
    : {};
  if (type === undefined) return { metadata };
  if (type === 'self_hosted' && typeof environment.workspace_directory === 'string') {
    return { environment: { type, workspace_directory: environment.workspace_directory }, metadata };
  }
  return { environment: { type: type === 'self_hosted' ? 'openai_hosted' : type }, metadata };
}

export function withSessionExtras(
  conversation: Conversation,
  extras: SessionExtras,
): Record<string, unknown> {
  return { ...conversation.metadata, [AGENTS_API_METADATA_KEY]: extras };
}

/** The environment as a session shows it; a sandbox's id is the conversation's project. */
export function apiEnvironment(
  stored: StoredEnvironment,
  conversation: Conversation,
  agent: Agent | undefined,
): ApiEnvironment {
  if (stored.type === 'none') return { type: 'none' };
  if (stored.type === 'self_hosted') {
    return {
      type: 'self_hosted',
      id: conversation.project_id,
      capability_directories: [],
      remote_url: '',
      workspace_directory: stored.workspace_directory ?? '.',
    };
  }
  return {
    type: 'openai_hosted',
    id: conversation.project_id,
    capability_directories: [],
    files: [],
    network: {
      access: agent?.config.execute?.network === true ? 'enabled' : 'disabled',
      allowed_domains: [],
    },
    packages: { npm: [], python: [], system: [] },
    plugins: [],
    skills: [],
  };
}
