/**
 * A real MCP server for the test suite. `stdio` by default; `--http` listens on 127.0.0.1 (random port,
 * printed as `LISTENING <port>`) with the Streamable HTTP transport. Run with `node --import tsx`.
 */
import { createHash } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { statelessMcpHttp } from './stateless-mcp-http.js';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'troupe-test', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echoes the text back',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true },
    },
    ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number().optional() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + (b ?? 0)) }] }),
  );
  server.registerTool(
    'slow',
    { description: 'Answers after ms milliseconds', inputSchema: { ms: z.number().int() } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `slept ${ms}` }] };
    },
  );
  server.registerTool('fail', { description: 'Always reports an error' }, () => ({
    isError: true,
    content: [{ type: 'text', text: 'the tool says no' }],
  }));
  server.registerTool('pid', { description: 'The server process id' }, () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }));
  // A digest, not the value: tests prove the real secret arrived without it landing in run events.
  server.registerTool(
    'header',
    {
      description: 'sha256 of a request header as the server received it (http only)',
      inputSchema: { name: z.string() },
    },
    ({ name }, extra) => {
      const value = extra.requestInfo?.headers[name.toLowerCase()];
      const text =
        typeof value === 'string' ? `sha256:${createHash('sha256').update(value).digest('hex')}` : '(none)';
      return { content: [{ type: 'text', text }] };
    },
  );
  server.registerTool('crash', { description: 'Exits the server process' }, () => {
    setTimeout(() => process.exit(3), 5);
    return new Promise(() => undefined);
  });
  // `--reverse-tools`: the same tools listed in the opposite order (the SDK lists its registry in insertion
  // order), for tests that a client does not depend on a server's listing order.
  if (process.argv.includes('--reverse-tools')) {
    const registry = (server as unknown as { _registeredTools: Record<string, unknown> })._registeredTools;
    const entries = Object.entries(registry).reverse();
    for (const [name] of entries) delete registry[name];
    for (const [name, tool] of entries) registry[name] = tool;
  }
  return server;
}

if (process.argv.includes('--http')) {
  const http = statelessMcpHttp(buildServer);
  http.listen(0, '127.0.0.1', () => {
    const address = http.address();
    if (address && typeof address === 'object') process.stdout.write(`LISTENING ${address.port}\n`);
  });
} else {
  await buildServer().connect(new StdioServerTransport());
}
