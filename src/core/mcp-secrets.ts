import { TroupeError } from './errors.js';
import type { Agent, AgentConfig, McpServerConfig } from './records/agent.js';

/**
 * What every read shows instead of an MCP `headers` or `env` value (docs/egress-and-secrets.md: write-only secrets). Sent
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
  const redacted = { ...config };
  if (config.mcp_servers) redacted.mcp_servers = config.mcp_servers.map(redactMcpServer);
  // A remote A2A expert's credentials are secrets of the same kind (docs/egress-and-secrets.md).
  if (config.a2a?.headers) redacted.a2a = { ...config.a2a, headers: redactValues(config.a2a.headers) };
  return redacted;
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
  const issues: Issue[] = [];
  const a2a = keepA2AHeaders(incoming, stored, options, issues);
  if (!incoming.mcp_servers) {
    throwIssues(issues);
    return a2a ? { ...incoming, a2a } : incoming;
  }
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
  throwIssues(issues);
  return { ...incoming, mcp_servers: servers, ...(a2a ? { a2a } : {}) };
}

interface Issue {
  path: string;
  message: string;
  code: string;
}

function throwIssues(issues: Issue[]): void {
  if (issues.length === 0) return;
  const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  throw new TroupeError('validation_failed', `Invalid input: ${summary}`, { details: { issues } });
}

/** A remote expert's headers with placeholders restored, from the stored config of the same card URL only. */
function keepA2AHeaders(
  incoming: AgentConfig,
  stored: AgentConfig | undefined,
  options: KeepSecretsOptions,
  issues: Issue[],
): AgentConfig['a2a'] {
  const remote = incoming.a2a;
  if (!remote?.headers) return remote;
  const source = stored?.a2a?.card_url === remote.card_url ? stored.a2a.headers : undefined;
  const headers = Object.fromEntries(
    Object.entries(remote.headers).map(([key, value]) => {
      if (value !== REDACTED_SECRET) return [key, value];
      const kept = source?.[key];
      if (kept !== undefined) return [key, kept];
      if (options.unmatched === 'refuse') {
        issues.push({
          path: `config.a2a.headers.${key}`,
          message: `"${REDACTED_SECRET}" keeps a stored value, but none is stored for this key at this card_url; send the real value`,
          code: 'custom',
        });
      }
      return [key, value];
    }),
  );
  return { ...remote, headers };
}

function unmatchedIssue(index: number, field: SecretField, key: string, server: McpServerConfig) {
  return {
    path: `config.mcp_servers.${index}.${field}.${key}`,
    message: `"${REDACTED_SECRET}" keeps a stored value, but server "${server.name}" has none for this key at this ${server.transport === 'http' ? 'url' : 'command'}; send the real value`,
    code: 'custom',
  };
}
