import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolEffect } from '../../../src/core/tools/tool-effect.js';
import { statelessMcpHttp } from './stateless-mcp-http.js';

/** One tool per effect class, as its annotations declare it (docs/effects-and-forks.md#mcp-tools). */
export const COUNTING_TOOLS: Record<ToolEffect, string> = {
  read_only: 'lookup',
  idempotent: 'upsert',
  external: 'send',
};

const ANNOTATIONS = {
  lookup: { readOnlyHint: true },
  upsert: { readOnlyHint: false, idempotentHint: true },
  // No annotation at all: an MCP tool that says nothing is external.
  send: undefined,
} as const;

export interface CountingMcpServer {
  url: string;
  /** How often `tool` ran with this `key` (a call counts when it starts its effect). */
  count(tool: string, key: string): number;
  /**
   * Makes the next calls with `key` wait after counting, until `release`; `entered` resolves when one did.
   * The fault suites kill the worker while a call waits here.
   */
  hold(key: string): { entered: Promise<void>; release: () => void };
  close(): Promise<void>;
}

/**
 * A real MCP server (Streamable HTTP on 127.0.0.1, in the test's process) whose three tools count their
 * invocations per key: what the kill -9 suites read to prove that no external effect ran twice.
 */
export async function startCountingMcpServer(): Promise<CountingMcpServer> {
  const counts = new Map<string, number>();
  const holds = new Map<string, { entered: () => void; released: Promise<void> }>();

  function build(): McpServer {
    const server = new McpServer({ name: 'troupe-counting', version: '1.0.0' });
    for (const tool of Object.values(COUNTING_TOOLS)) {
      const annotations = ANNOTATIONS[tool as keyof typeof ANNOTATIONS];
      server.registerTool(
        tool,
        {
          description: `${tool}: counts its calls by key`,
          inputSchema: { key: z.string() },
          ...(annotations ? { annotations } : {}),
        },
        async ({ key }) => {
          counts.set(`${tool}:${key}`, (counts.get(`${tool}:${key}`) ?? 0) + 1);
          const held = holds.get(key);
          if (held) {
            held.entered();
            await held.released;
          }
          return { content: [{ type: 'text', text: `${tool} ${key}: done` }] };
        },
      );
    }
    return server;
  }

  const http: Server = statelessMcpHttp(build);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    count: (tool, key) => counts.get(`${tool}:${key}`) ?? 0,
    hold(key) {
      let entered: () => void = () => undefined;
      let release: () => void = () => undefined;
      const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.set(key, { entered, released });
      return {
        entered: enteredPromise,
        release: () => {
          holds.delete(key);
          release();
        },
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const held of holds.values()) held.entered();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
