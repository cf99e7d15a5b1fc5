import { TaskState } from '@a2a-js/sdk';
import type { Client as A2AClient } from '@a2a-js/sdk/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, asTask, codeOf, collect, userText } from '../helpers/a2a-client.js';
import { call, nested, sendWith, useA2aProtocolServer } from '../helpers/use-a2a-protocol-server.js';
import type { TestServer } from '../helpers/start-test-server.js';

/**
 * The A2A JSON-RPC surface at its edges, over loopback: the spec's error codes for malformed calls, and another
 * user's task ids.
 */
const edge = useA2aProtocolServer();
const { rpc } = edge;
let server: TestServer;
let demo: A2AClient;
let bobToken: string;
let taskId: string;
beforeAll(() => {
  server = edge.server();
  demo = edge.demo();
  bobToken = edge.bobToken();
  taskId = edge.taskId();
});

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
