import type { EgressPolicy } from '../../core/egress/egress-policy.js';
import { isTroupeError } from '../../core/errors.js';
import type { ToolSource, ToolSourceProbe } from '../../core/ports/tool-source.js';
import type { Agent, McpServerConfig } from '../../core/records/agent.js';
import { effectFromHints } from '../../core/tools/tool-effect.js';
import { defineTool, type AnyTroupeTool } from '../../core/tools/troupe-tool.js';
import type { Resolver } from '../egress/create-egress-fetch.js';
import { egressDenied } from '../egress/create-egress-fetch.js';
import { createMcpConnection, type McpConnection, type McpToolInfo } from './mcp-connection.js';
import { mcpInputSchema } from './mcp-input-schema.js';
import { mcpToolName, mcpToolPrefix } from './mcp-tool-name.js';
import { renderMcpResult } from './render-mcp-result.js';

export interface McpToolSourceOptions {
  /**
   * Whether this agent may start stdio servers. A stdio server is a command run on the server host, so
   * the composition root decides (e.g. only for agents owned by an admin); HTTP servers are always allowed.
   */
  allowStdio(agent: Agent): boolean | Promise<boolean>;
  /** Per-call deadline for servers without `timeout_ms`; default 30 s. */
  defaultTimeoutMs?: number;
  /**
   * Deadline to connect and list tools; default 15 s (a stdio server may need a while to start). A
   * server's `timeout_ms` bounds each call, not the start-up, so it can be short without losing the server.
   */
  connectTimeoutMs?: number;
  /** Connections unused for this long are closed; default 10 min. */
  idleMs?: number;
  /** Where listing failures go (a run goes on without that server's tools). */
  warn?(message: string): void;
  /**
   * The egress policy of http servers (docs/egress-and-secrets.md) and the agents it binds (e.g. those of non-admin
   * owners); without it nothing is checked, which suits only the operator's own CLI.
   */
  egress?: {
    policy: EgressPolicy;
    appliesTo(agent: Agent): boolean | Promise<boolean>;
    /** DNS for the check (tests); the system resolver by default. */
    resolve?: Resolver;
  };
}

export type McpToolSource = ToolSource<AnyTroupeTool> & Required<Pick<ToolSource<AnyTroupeTool>, 'probe'>>;

const STDIO_REFUSED =
  'stdio MCP servers run a command on the server host; only agents owned by an admin may use them';

/** Servers of an agent, first of each name: two servers with one name would fight over one tool prefix. */
function serversOf(agent: Agent): McpServerConfig[] {
  const seen = new Set<string>();
  return (agent.config.mcp_servers ?? []).filter((server) => !seen.has(server.name) && seen.add(server.name));
}

/**
 * Everything that makes two configs talk to a different server; equal keys share one connection. The
 * egress policy is part of it: an unchecked connection opened for an admin's agent is never lent to a
 * member's agent with the same config.
 */
function keyOf(server: McpServerConfig, guarded: boolean): string {
  const { name, transport, command, args, env, url, headers } = server;
  return JSON.stringify([name, transport, command, args, env, url, headers, guarded]);
}

/**
 * MCP servers as a tool source (docs/records-and-access.md config `mcp_servers`): one lazily opened connection per server
 * config, shared by every agent and run that uses it, closed on shutdown or after a long idle spell.
 */
export function createMcpToolSource(options: McpToolSourceOptions): McpToolSource {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
  const idleMs = options.idleMs ?? 10 * 60_000;
  const connections = new Map<string, { connection: McpConnection; usedAt: number }>();

  function sweepIdle(now: number): void {
    for (const [key, entry] of connections) {
      if (entry.connection.busy === 0 && now - entry.usedAt > idleMs) {
        connections.delete(key);
        void entry.connection.close();
      }
    }
  }

  function open(server: McpServerConfig, guarded: boolean): McpConnection {
    const egress = options.egress;
    return createMcpConnection(
      server,
      guarded && egress
        ? { egress: egress.policy, ...(egress.resolve ? { resolve: egress.resolve } : {}) }
        : {},
    );
  }

  function connectionFor(server: McpServerConfig, guarded: boolean): McpConnection {
    const now = Date.now();
    sweepIdle(now);
    const key = keyOf(server, guarded);
    let entry = connections.get(key);
    if (!entry) {
      entry = { connection: open(server, guarded), usedAt: now };
      connections.set(key, entry);
    }
    entry.usedAt = now;
    return entry.connection;
  }

  async function allowed(agent: Agent, server: McpServerConfig): Promise<boolean> {
    return server.transport !== 'stdio' || (await options.allowStdio(agent));
  }

  async function isGuarded(agent: Agent, server: McpServerConfig): Promise<boolean> {
    return (
      server.transport === 'http' && options.egress !== undefined && (await options.egress.appliesTo(agent))
    );
  }

  /** A URL refused as written (an address literal, localhost, a metadata name): no need to try it. */
  function plainRefusal(server: McpServerConfig): string | undefined {
    if (!options.egress || server.url === undefined) return undefined;
    let url: URL;
    try {
      url = new URL(server.url);
    } catch {
      return undefined;
    }
    const verdict = options.egress.policy.checkUrl(url);
    return verdict === 'resolve' || verdict.allowed ? undefined : egressDenied(verdict).message;
  }

  /** `config`: the agent's own entry, whose effect overrides apply; the connection may be another agent's. */
  function toTool(connection: McpConnection, info: McpToolInfo, config: McpServerConfig): AnyTroupeTool {
    const { server } = connection;
    const name = mcpToolName(server.name, info.name);
    return defineTool({
      name,
      description: info.description ?? `Tool ${info.name} of the MCP server ${server.name}`,
      // The agent's config overrides what the server says (docs/effects-and-forks.md#mcp-tools).
      effect: config.tool_effects?.[info.name] ?? config.effect ?? effectFromHints(info.annotations),
      inputSchema: mcpInputSchema(info.inputSchema),
      async execute(input, context) {
        const timeoutMs = server.timeout_ms ?? defaultTimeoutMs;
        const result = await connection.callTool(info.name, input, {
          signal: context.abortSignal,
          timeoutMs,
          connectTimeoutMs,
        });
        return renderMcpResult(name, result);
      },
    });
  }

  return {
    async toolsFor(agent) {
      const perServer = await Promise.all(
        serversOf(agent).map(async (server) => {
          if (!(await allowed(agent, server))) {
            options.warn?.(`MCP server "${server.name}" of agent ${agent.slug} skipped: ${STDIO_REFUSED}`);
            return [];
          }
          const guarded = await isGuarded(agent, server);
          const refusal = guarded ? plainRefusal(server) : undefined;
          if (refusal) {
            options.warn?.(`MCP server "${server.name}" of agent ${agent.slug} skipped: ${refusal}`);
            return [];
          }
          const connection = connectionFor(server, guarded);
          let listing: McpToolInfo[];
          try {
            listing = await connection.listTools(Math.max(connectTimeoutMs, server.timeout_ms ?? 0));
          } catch (error) {
            // Offer what the server had last time: calls then answer with a clear error until it is back.
            listing = connection.lastListing ?? [];
            options.warn?.(`${error instanceof Error ? error.message : String(error)} (agent ${agent.slug})`);
          }
          // By name, not in the server's listing order: the tool list is part of the prompt's cached prefix
          // and must be the same bytes at every call (docs/model-calls.md#prompt-caching).
          return [...listing]
            .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0))
            .map((info) => toTool(connection, info, server));
        }),
      );
      return perServer.flat();
    },

    async probe(agent, probeOptions): Promise<ToolSourceProbe> {
      const result: ToolSourceProbe = { tool_names: [], unreachable: [], refused: [] };
      await Promise.all(
        serversOf(agent).map(async (server) => {
          const prefix = mcpToolPrefix(server.name);
          if (!(await allowed(agent, server))) {
            result.refused.push({ server: server.name, prefix, message: STDIO_REFUSED });
            return;
          }
          const guarded = await isGuarded(agent, server);
          const refusal = guarded ? plainRefusal(server) : undefined;
          if (refusal) {
            result.refused.push({ server: server.name, prefix, message: refusal });
            return;
          }
          // Drafts change on every keystroke: reuse a live connection, but never keep one for a probe.
          const live = connections.get(keyOf(server, guarded))?.connection;
          const connection = live ?? open(server, guarded);
          try {
            const listing = await connection.listTools(probeOptions.timeoutMs);
            result.tool_names.push(...listing.map((info) => mcpToolName(server.name, info.name)));
          } catch (error) {
            // A name that resolved to a refused address is a policy answer, not a server being down.
            if (isTroupeError(error, 'egress_denied')) {
              const reason = error.details?.reason;
              result.refused.push({
                server: server.name,
                prefix,
                message: typeof reason === 'string' ? reason : error.message,
              });
              return;
            }
            result.unreachable.push({
              server: server.name,
              prefix,
              message: error instanceof Error ? error.message : String(error),
            });
          } finally {
            if (!live) await connection.close();
          }
        }),
      );
      return result;
    },

    async close() {
      const all = [...connections.values()];
      connections.clear();
      await Promise.all(all.map((entry) => entry.connection.close()));
    },
  };
}
