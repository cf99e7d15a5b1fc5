import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { McpServerConfig } from '../../../src/core/records/agent.js';

export const MCP_TEST_SERVER = path.join(import.meta.dirname, 'mcp-test-server.ts');

/** The stdio config of the test server: a real child process per connection. */
export function stdioTestServer(name = 'test', extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: ['--import', 'tsx', MCP_TEST_SERVER],
    ...extra,
  };
}

export interface HttpTestServer {
  url: string;
  process: ChildProcess;
  config(name?: string, extra?: Partial<McpServerConfig>): McpServerConfig;
  stop(): Promise<void>;
}

/** Starts the test server as a Streamable HTTP process on 127.0.0.1 and resolves once it listens. */
export function startHttpTestServer(): Promise<HttpTestServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', MCP_TEST_SERVER, '--http'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`MCP test server did not start: ${output}`)), 15_000);
    child.once('exit', (code) => reject(new Error(`MCP test server exited with ${code}: ${output}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /LISTENING (\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      const url = `http://127.0.0.1:${match[1]}/mcp`;
      resolve({
        url,
        process: child,
        config: (name = 'web', extra = {}) => ({ name, transport: 'http', url, ...extra }),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill();
          }),
      });
    });
  });
}
