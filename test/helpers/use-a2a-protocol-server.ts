import type { Client as A2AClient } from '@a2a-js/sdk/client';
import { afterAll, beforeAll } from 'vitest';
import { a2aClient, asTask, userText } from './a2a-client.js';
import { startTestServer, type TestServer } from './start-test-server.js';

/**
 * One server on loopback for the A2A protocol-edge suites: the demo user's SDK client with one finished task of
 * theirs, and a second user, bob, with a token of his own.
 */
export function useA2aProtocolServer() {
  let server: TestServer;
  let demo: A2AClient;
  let bobToken: string;
  let taskId: string;

  beforeAll(async () => {
    server = await startTestServer();
    const bob = await server.troupe.storage.users.create({ name: 'bob', role: 'member' });
    bobToken = (await server.troupe.auth.issueToken(bob.id, 'a2a')).token;
    demo = await a2aClient(`${server.url}/a2a/analyst/`, server.token);
    taskId = asTask(await demo.sendMessage(userText('A task of the demo user'))).id;
  });
  afterAll(async () => {
    await server.close();
  });

  /** A raw JSON-RPC call, as A2A 1.0 unless `headers` says otherwise (no header at all means 0.3). */
  async function rpc(
    body: string,
    headers: Record<string, string> = { 'A2A-Version': '1.0' },
    path = '/a2a/analyst',
  ) {
    const response = await server.api(path, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        id?: unknown;
        result?: Record<string, unknown>;
        error?: {
          code: number;
          message: string;
          data?: { '@type': string; fieldViolations?: { field: string; description: string }[] }[];
        };
      },
    };
  }

  return { server: () => server, demo: () => demo, bobToken: () => bobToken, taskId: () => taskId, rpc };
}

/** A message of `SendMessage` params whose `message` fields are `fields`. */
export const sendWith = (fields: Record<string, unknown>) =>
  call('SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'hi' }], ...fields } });

/** `[[…[[0]]…]]`, `levels` arrays deep, written out as JSON text (no recursion on either side). */
export const nested = (levels: number) => `${'['.repeat(levels)}0${']'.repeat(levels)}`;

export const call = (method: string, params: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
