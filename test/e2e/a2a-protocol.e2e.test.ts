import { TaskState } from '@a2a-js/sdk';
import { Client, type Client as A2AClient } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { isJsonRpcError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, asTask, bearerFetch, collect, outputText, userText } from '../helpers/a2a-client.js';
import { readSse, startTestServer, type TestServer } from '../helpers/start-test-server.js';

/**
 * The A2A JSON-RPC surface at its edges, over loopback: the spec's error codes for malformed calls,
 * another user's task ids, unpublished agents, and the A2A 0.3 method names (the SDK's 0.3 client).
 */
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

/** The JSON-RPC error code an SDK call failed with. */
async function codeOf(call: () => Promise<unknown>): Promise<number> {
  try {
    await call();
  } catch (error) {
    if (isJsonRpcError(error)) return error.envelopeCode;
    throw error;
  }
  throw new Error('the call succeeded');
}

async function rpc(body: string, headers: Record<string, string> = {}, path = '/a2a/analyst') {
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
      error?: { code: number; message: string };
    },
  };
}

const call = (method: string, params: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('malformed JSON-RPC', () => {
  it.each([
    ['unparseable JSON', '{', -32700],
    ['empty body', '', -32700],
    ['a batch', '[]', -32600],
    ['a bare string', '"hi"', -32600],
    ['jsonrpc 1.0', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'GetTask', params: {} }), -32600],
    ['no method', JSON.stringify({ jsonrpc: '2.0', id: 1 }), -32600],
    ['a fractional id', JSON.stringify({ jsonrpc: '2.0', id: 1.5, method: 'GetTask', params: {} }), -32600],
    ['an unknown method', call('DoSomething', {}), -32601],
    ['params not an object', call('GetTask', 5), -32602],
    ['GetTask without id', call('GetTask', {}), -32602],
    ['SendMessage without a message', call('SendMessage', {}), -32602],
    [
      'SendMessage with a file part',
      call('SendMessage', {
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ url: 'https://example.com/a.pdf' }] },
      }),
      -32005,
    ],
    [
      'undecodable bytes',
      call('SendMessage', { message: { messageId: 'm3', role: 'ROLE_USER', parts: [{ raw: 5 }] } }),
      -32602,
    ],
    ['ListTasks with a page size over 100', call('ListTasks', { pageSize: 1000 }), -32602],
    ['ListTasks with a forged page token', call('ListTasks', { pageToken: 'not-a-token' }), -32602],
    ['0.3 tasks/get without id', call('tasks/get', {}), -32602],
    ['an unknown task', call('GetTask', { id: 'no-such-task' }), -32001],
    [
      'push notification config',
      call('CreateTaskPushNotificationConfig', { taskId: 'x', url: 'https://example.com/hook' }),
      -32003,
    ],
    [
      'an unknown contextId',
      call('SendMessage', {
        message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'hi' }], contextId: 'cnv_0000' },
      }),
      -32602,
    ],
  ])('%s ⇒ %i', async (_name, body, code) => {
    const answer = await rpc(body);
    expect(answer.status).toBe(200);
    expect(answer.body.error?.code).toBe(code);
  });

  it('answers with the request id, and refuses an unsupported A2A-Version with -32009', async () => {
    const answer = await rpc(call('GetTask', { id: 'no-such-task' }, 'req-7'));
    expect(answer.body.id).toBe('req-7');
    expect((await rpc(call('GetTask', { id: taskId }), { 'A2A-Version': '9.9' })).body.error?.code).toBe(
      -32009,
    );
  });

  it('a finished task is not cancelable (-32002), not subscribable (-32004) and takes no messages (-32004)', async () => {
    expect(await codeOf(() => demo.cancelTask({ tenant: '', id: taskId, metadata: undefined }))).toBe(-32002);
    expect(await codeOf(() => collect(demo.resubscribeTask({ tenant: '', id: taskId })))).toBe(-32004);
    expect(await codeOf(() => demo.sendMessage(userText('more', { taskId })))).toBe(-32004);
  });
});

describe("another user's tasks", () => {
  it('are TaskNotFound to get, cancel or subscribe to, and absent from their list', async () => {
    const bob = await a2aClient(`${server.url}/a2a/analyst/`, bobToken);
    expect(await codeOf(() => bob.getTask({ tenant: '', id: taskId }))).toBe(-32001);
    expect(await codeOf(() => bob.cancelTask({ tenant: '', id: taskId, metadata: undefined }))).toBe(-32001);
    expect(await codeOf(() => collect(bob.resubscribeTask({ tenant: '', id: taskId })))).toBe(-32001);
    const context = asTask(await demo.getTask({ tenant: '', id: taskId })).contextId;
    expect(await codeOf(() => bob.sendMessage(userText('join in', { contextId: context })))).toBe(-32602);
    const listed = await bob.listTasks({
      tenant: '',
      contextId: '',
      status: 0,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((task) => task.id)).not.toContain(taskId);
    // Bob's own task works, and is his alone.
    const own = asTask(await bob.sendMessage(userText('A task of bob')));
    expect(own.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await codeOf(() => demo.getTask({ tenant: '', id: own.id }))).toBe(-32001);
  });
});

describe('unpublished agents and missing tokens', () => {
  it('a draft agent has no card and no endpoint, and is not on the server card', async () => {
    const card = await server.api('/a2a/assistant/.well-known/agent-card.json');
    expect(card.status).toBe(404);
    expect(((await card.json()) as { error: { code: string } }).error.code).toBe('agent_not_found');
    const sent = await server.api('/a2a/assistant', {
      method: 'POST',
      body: call('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
    });
    expect(sent.status).toBe(404);
    await expect(a2aClient(`${server.url}/a2a/assistant/`, server.token)).rejects.toThrow(/404/);
    const root = (await (await server.api('/.well-known/agent-card.json')).json()) as {
      skills: { id: string }[];
    };
    expect(root.skills.map((skill) => skill.id)).toEqual(['analyst']);
    // Unpublishing takes the expert off A2A at once.
    expect((await server.api('/api/agent/analyst/unpublish', { method: 'POST' })).status).toBe(200);
    expect((await rpc(call('GetTask', { id: taskId }))).status).toBe(404);
    expect((await server.api('/api/agent/analyst/publish', { method: 'POST' })).status).toBe(200);
  });

  it('every A2A route needs a bearer token', async () => {
    for (const [method, path] of [
      ['GET', '/.well-known/agent-card.json'],
      ['GET', '/a2a/analyst/.well-known/agent-card.json'],
      ['POST', '/a2a/analyst'],
      ['POST', '/a2a'],
    ]) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        ...(method === 'POST' ? { body: call('GetTask', { id: taskId }) } : {}),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });
});

describe('A2A 0.3 method names', () => {
  it('message/send and tasks/get answer in 0.3 shapes', async () => {
    const sent = await rpc(
      call('message/send', {
        message: {
          kind: 'message',
          messageId: 'legacy-1',
          role: 'user',
          parts: [{ kind: 'text', text: 'An old client asks' }],
        },
        configuration: { blocking: true },
      }),
    );
    expect(sent.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const id = String(sent.body.result?.id);
    const got = await rpc(call('tasks/get', { id }));
    expect(got.body.result).toMatchObject({ kind: 'task', id, status: { state: 'completed' } });
    expect(JSON.stringify(got.body.result)).toContain('Analysis of: An old client asks');
  });

  it('message/stream flags its last status update final', async () => {
    const response = await server.api('/a2a/analyst', {
      method: 'POST',
      body: call('message/stream', {
        message: {
          kind: 'message',
          messageId: 'legacy-2',
          role: 'user',
          parts: [{ kind: 'text', text: 'Stream, old style' }],
        },
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const results = (await readSse(response)).map(
      (frame) =>
        (JSON.parse(frame.data) as { result: { kind: string; final?: boolean; status?: { state: string } } })
          .result,
    );
    expect(results[0]?.kind).toBe('task');
    expect(results.at(-1)).toMatchObject({
      kind: 'status-update',
      final: true,
      status: { state: 'completed' },
    });
    expect(results.slice(0, -1).some((result) => result.final === true)).toBe(false);
  });

  it("the SDK's 0.3 client sends, streams, gets and cancels", async () => {
    const legacy = new Client(
      new LegacyJsonRpcTransport({
        endpoint: `${server.url}/a2a/analyst`,
        fetchImpl: bearerFetch(server.token),
      }),
      await demo.getAgentCard(),
    );
    const task = asTask(await legacy.sendMessage(userText('Legacy question')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputText(await legacy.getTask({ tenant: '', id: task.id }))).toContain(
      'Analysis of: Legacy question',
    );
    const events = await collect(legacy.sendMessageStream(userText('Legacy stream')));
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
    expect(await codeOf(() => legacy.cancelTask({ tenant: '', id: task.id, metadata: undefined }))).toBe(
      -32002,
    );
  });
});
