import { TroupeError } from './errors.js';
import type { Agent, AgentConfig, McpServerConfig } from './records/agent.js';

/**
 * What every read shows instead of an MCP `headers` or `env` value (SPEC §12: write-only secrets). Sent
 * back unchanged in an update, it means "keep the stored value", so a client can round-trip a config.
 */
export const REDACTED_SECRET = '[redacted]';

const SECRET_FIELDS = ['headers', 'env'] as const;
type SecretField = (typeof SECRET_FIELDS)[number];

function redactValues(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(values).map((key) => [key, REDACTED_SECRET]));
}

export function redactMcpServer(server: McpServerConfig): McpServerConfig {
  const redacted = { ...server };
  for (const field of SECRET_FIELDS) {
    const values = server[field];
    if (values) redacted[field] = redactValues(values);
  }
  return redacted;
}

export function redactAgentConfig(config: AgentConfig): AgentConfig {
  if (!config.mcp_servers) return config;
  return { ...config, mcp_servers: config.mcp_servers.map(redactMcpServer) };
}

/** The form of an agent any API response, console view or log may carry. */
export function redactAgent<TAgent extends Agent>(agent: TAgent): TAgent {
  return { ...agent, config: redactAgentConfig(agent.config) };
}

/**
 * The stored server a placeholder may take its value from: same name, same transport, same target. A
 * secret is never carried over to a new URL or command, where it would go to someone else.
 */
function sameTarget(incoming: McpServerConfig, stored: McpServerConfig): boolean {
  return (
    incoming.name === stored.name &&
    incoming.transport === stored.transport &&
    incoming.url === stored.url &&
    incoming.command === stored.command &&
    JSON.stringify(incoming.args ?? []) === JSON.stringify(stored.args ?? [])
  );
}

export interface KeepSecretsOptions {
  /**
   * What to do with a placeholder that has no stored value: `refuse` (saving an agent: the placeholder
   * would become the secret) or `leave` (a draft report: the placeholder is no secret, so it may go out).
   */
  unmatched: 'refuse' | 'leave';
}

/** `incoming` with every placeholder replaced by the value stored for the same server and key. */
export function keepRedactedSecrets(
  incoming: AgentConfig,
  stored: AgentConfig | undefined,
  options: KeepSecretsOptions = { unmatched: 'refuse' },
): AgentConfig {
  if (!incoming.mcp_servers) return incoming;
  const issues: { path: string; message: string; code: string }[] = [];
  const servers = incoming.mcp_servers.map((server, index) => {
    const source = (stored?.mcp_servers ?? []).find((candidate) => sameTarget(server, candidate));
    const restored = { ...server };
    for (const field of SECRET_FIELDS) {
      const values = server[field];
      if (!values) continue;
      restored[field] = Object.fromEntries(
        Object.entries(values).map(([key, value]) => {
          if (value !== REDACTED_SECRET) return [key, value];
          const kept = source?.[field]?.[key];
          if (kept !== undefined) return [key, kept];
          if (options.unmatched === 'refuse') issues.push(unmatchedIssue(index, field, key, server));
          return [key, value];
        }),
      );
    }
    return restored;
  });
  if (issues.length > 0) {
    const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    throw new TroupeError('validation_failed', `Invalid input: ${summary}`, { details: { issues } });
  }
  return { ...incoming, mcp_servers: servers };
}

function unmatchedIssue(index: number, field: SecretField, key: string, server: McpServerConfig) {
  return {
    path: `config.mcp_servers.${index}.${field}.${key}`,
    message: `"${REDACTED_SECRET}" keeps a stored value, but server "${server.name}" has none for this key at this ${server.transport === 'http' ? 'url' : 'command'}; send the real value`,
    code: 'custom',
  };
}
