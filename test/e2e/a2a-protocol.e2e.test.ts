import { TaskState } from '@a2a-js/sdk';
import { Client, type Client as A2AClient } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  a2aClient,
  asTask,
  codeOf,
  bearerFetch,
  collect,
  outputText,
  userText,
} from '../helpers/a2a-client.js';
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

/** A message of `SendMessage` params whose `message` fields are `fields`. */
const sendWith = (fields: Record<string, unknown>) =>
  call('SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'hi' }], ...fields } });

/** `[[…[[0]]…]]`, `levels` arrays deep, written out as JSON text (no recursion on either side). */
const nested = (levels: number) => `${'['.repeat(levels)}0${']'.repeat(levels)}`;

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
    ['SendMessage without a messageId', sendWith({}), -32602],
    ['a non-string messageId', sendWith({ messageId: { $gt: '' } }), -32602],
    ['a numeric taskId', sendWith({ messageId: 'm-t', taskId: 5 }), -32602],
    ['GetTask with an object id', call('GetTask', { id: { $ne: null } }), -32602],
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

  it.each([
    ['a non-string messageId', sendWith({ messageId: { $gt: '' } }), 'message.messageId'],
    ['an empty messageId', sendWith({ messageId: ' ' }), 'message.messageId'],
    ['a non-string contextId', sendWith({ messageId: 'm-c', contextId: ['x'] }), 'message.contextId'],
    [
      'too many parts',
      call('SendMessage', {
        message: {
          messageId: 'm-p',
          role: 'ROLE_USER',
          parts: Array.from({ length: 101 }, () => ({ text: 'x' })),
        },
      }),
      'message.parts',
    ],
    [
      'a data part 50,000 levels deep',
      `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-d","role":"ROLE_USER","parts":[{"data":${nested(50_000)}}]}}}`,
      'message.parts[0].data',
    ],
  ])('%s ⇒ -32602 naming the field', async (_name, body, field) => {
    const answer = await rpc(body);
    expect(answer.body.error?.code).toBe(-32602);
    expect(answer.body.error?.message).toContain(field);
    const violations = answer.body.error?.data?.[0]?.fieldViolations ?? [];
    expect(violations[0]?.field.startsWith(field)).toBe(true);
  });

  it('reads a request without A2A-Version as 0.3: 1.0 methods then need the header', async () => {
    const bare = await rpc(call('GetTask', { id: taskId }), {});
    expect(bare.body.error?.code).toBe(-32601);
    expect(bare.body.error?.message).toMatch(/A2A-Version: 1\.0/);
    expect((await rpc(call('tasks/get', { id: taskId }), {})).body.result).toMatchObject({
      kind: 'task',
      id: taskId,
    });
    // The server endpoint speaks 1.0 only: a header-less (0.3) request there is VersionNotSupported.
    const root = await rpc(call('GetTask', { id: taskId }), {}, '/a2a');
    expect(root.body.error?.code).toBe(-32009);
    expect(root.body.error?.message).toMatch(/without an A2A-Version header is A2A 0\.3/);
    expect((await rpc(call('message/send', {}), { 'A2A-Version': '1.0' })).body.error?.code).toBe(-32601);
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

  it('JSON-RPC endpoints need a bearer token', async () => {
    for (const path of ['/a2a/analyst', '/a2a']) {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        body: call('GetTask', { id: taskId }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });
});

describe('discovery', () => {
  it('serves public cards without a token, and private experts only with one', async () => {
    // A private published expert of the demo user.
    const created = await server.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Private expert',
        slug: 'hidden-expert',
        status: 'published',
        visibility: 'private',
        config: { model: 'scripted:demo', tools: [] },
      }),
    });
    expect(created.status).toBe(201);
    const anonymous = await fetch(`${server.url}/.well-known/agent-card.json`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('cache-control')).toMatch(/^public/);
    const card = (await anonymous.json()) as {
      skills: { id: string }[];
      capabilities: { extendedAgentCard?: boolean };
    };
    expect(card.skills.map((skill) => skill.id)).toEqual(['analyst']);
    expect(card.capabilities.extendedAgentCard).toBe(true);
    expect((await fetch(`${server.url}/a2a/analyst/.well-known/agent-card.json`)).status).toBe(200);
    // Without a token a private card and an unknown one look alike: both ask for a token.
    for (const slug of ['hidden-expert', 'no-such-expert']) {
      const response = await fetch(`${server.url}/a2a/${slug}/.well-known/agent-card.json`);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    // With a token: the private expert's card, and the extended server card lists it.
    expect((await server.api('/a2a/hidden-expert/.well-known/agent-card.json')).status).toBe(200);
    const bad = await fetch(`${server.url}/a2a/analyst/.well-known/agent-card.json`, {
      headers: { authorization: 'Bearer trp_not-a-token' },
    });
    expect(bad.status).toBe(401);
    const root = await a2aClient(server.url, server.token);
    expect((await root.getAgentCard()).skills.map((skill) => skill.id)).toEqual(['analyst', 'hidden-expert']);
    // Bob may not use the private expert: neither its card nor the extended card shows it to him.
    const bobRoot = await a2aClient(server.url, bobToken);
    expect((await bobRoot.getAgentCard()).skills.map((skill) => skill.id)).toEqual(['analyst']);
    const asBob = await fetch(`${server.url}/a2a/hidden-expert/.well-known/agent-card.json`, {
      headers: { authorization: `Bearer ${bobToken}` },
    });
    expect(asBob.status).toBe(404);
    // An expert endpoint has no extended card.
    expect((await rpc(call('GetExtendedAgentCard', {}))).body.error?.code).toBe(-32004);
    expect((await server.api('/api/agent/hidden-expert', { method: 'DELETE' })).status).toBeLessThan(300);
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
      {},
    );
    expect(sent.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const id = String(sent.body.result?.id);
    expect((await rpc(call('tasks/get', {}), {})).body.error?.code).toBe(-32602);
    const got = await rpc(call('tasks/get', { id }), { 'A2A-Version': '0.3' });
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
