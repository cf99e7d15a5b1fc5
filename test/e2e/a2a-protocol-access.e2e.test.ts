import { TaskState } from '@a2a-js/sdk';
import { Client, type Client as A2AClient } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  a2aClient,
  asTask,
  codeOf,
  bearerFetch,
  collect,
  outputText,
  userText,
} from '../helpers/a2a-client.js';
import { call, useA2aProtocolServer } from '../helpers/use-a2a-protocol-server.js';
import { readSse, type TestServer } from '../helpers/start-test-server.js';

/**
 * The A2A JSON-RPC surface at its edges, over loopback: unpublished agents, missing tokens, discovery, and the
 * A2A 0.3 method names (the SDK's 0.3 client).
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
