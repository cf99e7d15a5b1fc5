import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { EgressPolicy } from '../../core/egress/egress-policy.js';
import { TroupeError } from '../../core/errors.js';
import type { McpServerConfig } from '../../core/records/agent.js';
import type { ToolEffectHints } from '../../core/tools/tool-effect.js';
import { createEgressFetch, type EgressFetch, type Resolver } from '../egress/create-egress-fetch.js';
import { describeMcpFailure, egressRefusal } from './describe-mcp-failure.js';
import type { McpCallResult } from './render-mcp-result.js';

/** One tool as the server lists it. */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema?: unknown;
  /** What the server says a call does; its hints decide the tool's effect class (`effectFromHints`). */
  annotations?: ToolEffectHints;
}

export interface McpCallOptions {
  signal: AbortSignal;
  /** Deadline of the call itself. */
  timeoutMs: number;
  /** Deadline to reconnect first when the server went away (a stdio start can be slow). */
  connectTimeoutMs: number;
}

export interface McpConnection {
  readonly server: McpServerConfig;
  /** Lists the server's tools (connecting first if needed); remembers the last good listing. */
  listTools(timeoutMs: number): Promise<McpToolInfo[]>;
  /** The last listing that succeeded, if any: tools stay offered while a server restarts. */
  readonly lastListing: McpToolInfo[] | undefined;
  callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallResult>;
  /** Calls in flight, so an idle sweep never closes a busy connection. */
  readonly busy: number;
  close(): Promise<void>;
}

export interface McpConnectionOptions {
  /** When set, an http server is reached only through this policy (agents of non-admin users). */
  egress?: EgressPolicy;
  /** DNS for the egress check (tests); the system resolver by default. */
  resolve?: Resolver;
}

const MAX_LIST_PAGES = 20;
// McpError.code is a plain number; compare it with the protocol's numbers, not the enum type.
const REQUEST_TIMEOUT: number = ErrorCode.RequestTimeout;
const CONNECTION_CLOSED: number = ErrorCode.ConnectionClosed;

function transportFor(server: McpServerConfig, guarded: EgressFetch | undefined): Transport {
  if (server.transport === 'stdio') {
    return new StdioClientTransport({
      command: server.command ?? '',
      args: server.args ?? [],
      // The SDK adds a small safe subset of the parent environment (PATH, HOME…), never all of it.
      ...(server.env ? { env: server.env } : {}),
      stderr: 'ignore',
    });
  }
  return new StreamableHTTPClientTransport(new URL(server.url ?? ''), {
    requestInit: { headers: { ...server.headers } },
    ...(guarded ? { fetch: guarded.fetch } : {}),
  });
}

/** A lazily opened, reusable client for one server config; it reconnects on the next use after a crash. */
export function createMcpConnection(
  server: McpServerConfig,
  options: McpConnectionOptions = {},
): McpConnection {
  // One guarded fetch (and socket pool) per connection: sockets are never shared across policies.
  const guarded =
    options.egress && server.transport === 'http'
      ? createEgressFetch({
          policy: options.egress,
          ...(options.resolve ? { resolve: options.resolve } : {}),
        })
      : undefined;
  let current: Promise<Client> | undefined;
  let generation = 0;
  let lastListing: McpToolInfo[] | undefined;
  let closed = false;
  let busy = 0;

  const unavailable = (why: string) =>
    new TroupeError('mcp_server_unavailable', `MCP server "${server.name}" is unavailable: ${why}`);
  /** Never the remote's own words (docs/egress-and-secrets.md); an egress refusal keeps its code so reports can tell it apart. */
  const failed = (error: unknown) => {
    const refusal = egressRefusal(error);
    if (refusal) {
      const message = `MCP server "${server.name}" is unavailable: ${refusal.message}`;
      return new TroupeError('egress_denied', message, {
        details: { ...refusal.details, reason: refusal.message },
      });
    }
    return unavailable(describeMcpFailure(error));
  };

  async function open(timeoutMs: number, onClosed: () => void): Promise<Client> {
    const client = new Client({ name: 'troupe', version: '0.1.0' });
    const opening = (async () => {
      try {
        await client.connect(transportFor(server, guarded), { timeout: timeoutMs });
        return client;
      } catch (error) {
        // A process that started but never answered must not linger.
        await client.close().catch(() => undefined);
        throw failed(error);
      }
    })();
    // A crashed process or a dropped HTTP session: forget the client, the next use opens a fresh one.
    client.onclose = onClosed;
    return withDeadline(opening, timeoutMs, () => {
      void opening.then((late) => late.close()).catch(() => undefined);
      return unavailable(`no answer within ${timeoutMs} ms`);
    });
  }

  function connect(timeoutMs: number): Promise<Client> {
    if (closed) return Promise.reject(unavailable('the connection was shut down'));
    if (!current) {
      const mine = ++generation;
      const forget = () => {
        if (generation === mine) current = undefined;
      };
      current = open(timeoutMs, forget);
      current.catch(forget);
    }
    return current;
  }

  return {
    server,
    get lastListing() {
      return lastListing;
    },
    get busy() {
      return busy;
    },

    async listTools(timeoutMs) {
      const client = await connect(timeoutMs);
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      try {
        for (let page = 0; page < MAX_LIST_PAGES; page++) {
          const listed = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
          tools.push(...listed.tools);
          cursor = listed.nextCursor;
          if (!cursor) break;
        }
      } catch (error) {
        throw failed(error);
      }
      lastListing = tools;
      return tools;
    },

    async callTool(name, args, options) {
      busy += 1;
      try {
        const client = await connect(options.connectTimeoutMs);
        return (await client.callTool({ name, arguments: args }, undefined, {
          signal: options.signal,
          timeout: options.timeoutMs,
        })) as McpCallResult;
      } catch (error) {
        options.signal.throwIfAborted();
        if (error instanceof TroupeError) throw error;
        if (error instanceof McpError && error.code === REQUEST_TIMEOUT) {
          throw new TroupeError(
            'mcp_tool_timeout',
            `MCP tool "${name}" on server "${server.name}" timed out after ${options.timeoutMs} ms`,
          );
        }
        if (error instanceof McpError && error.code !== CONNECTION_CLOSED) {
          throw new TroupeError(
            'mcp_tool_failed',
            `MCP tool "${name}" on server "${server.name}" failed: ${error.message}`,
          );
        }
        throw failed(error);
      } finally {
        busy -= 1;
      }
    },

    async close() {
      closed = true;
      const client = current;
      current = undefined;
      if (client) await (await client.catch(() => undefined))?.close().catch(() => undefined);
      guarded?.close();
    },
  };
}

function withDeadline<T>(work: Promise<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), timeoutMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
