import { createServer, type Server } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/**
 * An HTTP server for the MCP test servers: stateless, a fresh MCP server and Streamable HTTP transport per
 * request, as the SDK recommends for simple servers. Not listening yet.
 */
export function statelessMcpHttp(build: () => McpServer): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const server = build();
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        res.on('close', () => void transport.close().then(() => server.close()));
        await server.connect(transport);
        const body =
          chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
        await transport.handleRequest(req, res, body);
      })().catch(() => res.destroy());
    });
  });
}
