import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/core/records/user.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';

const SCENARIOS: Record<string, string> = {
  // Two steps around a tool call: the completion carries the text of both, not the tool activity.
  echo: `
rules:
  - steps:
      - text: "Let me note that."
        tool_calls:
          - name: write_file
            args: { path: "note.md", content: "{{input}}" }
      - text: "Noted: {{input}}"
`,
  slow: `
rules:
  - steps:
      - text: "Thinking"
        tool_calls:
          - name: ls
            args: {}
      - delay_ms: 600000
        text: "This never arrives"
`,
  approver: `
rules:
  - steps:
      - text: "Writing."
        tool_calls:
          - name: write_file
            args: { path: "a.md", content: "x" }
      - text: "Done."
`,
  helper: `
rules:
  - steps:
      - text: "helping"
`,
};

interface Extended {
  conversation_id: string;
  run_id: string;
}

let server: TestServer;
let scenarioDir: string;
let alice: { user: User; token: string };
let bob: { user: User; token: string };
let client: OpenAI;

function clientFor(token: string): OpenAI {
  return new OpenAI({ apiKey: token, baseURL: `${server.url}/v1`, maxRetries: 0 });
}

/** `conversation_id` is Troupe's extension field: the typed client does not know it. */
function withConversation(params: ChatCompletionCreateParamsNonStreaming, conversationId: string) {
  return { ...params, conversation_id: conversationId } as ChatCompletionCreateParamsNonStreaming;
}

async function apiError(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error('expected an API error');
}

beforeAll(async () => {
  scenarioDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-openai-scenarios-'));
  for (const [name, body] of Object.entries(SCENARIOS))
    writeFileSync(path.join(scenarioDir, `${name}.yaml`), body);
  server = await startTestServer({ scenarioDir });
  const { auth, agents } = server.troupe;
  alice = await auth.createUserWithToken('alice', 'member', 'openai');
  bob = await auth.createUserWithToken('bob', 'member', 'openai');
  const trusted = { tools: ['write_file', 'ls'], tool_approval_mode: 'always_trust' as const };
  await agents.create(alice.user, {
    name: 'Echo',
    slug: 'echo',
    config: { model: 'scripted:echo', ...trusted },
  });
  await agents.create(alice.user, {
    name: 'Slow',
    slug: 'slow',
    config: { model: 'scripted:slow', ...trusted },
  });
  await agents.create(alice.user, {
    name: 'Approver',
    slug: 'approver',
    config: { model: 'scripted:approver', tools: ['write_file'], tool_approval_mode: 'default' },
  });
  await agents.create(alice.user, {
    name: 'Broken',
    slug: 'broken',
    config: { model: 'scripted:no-such-scenario' },
  });
  await agents.create(alice.user, {
    name: 'Helper',
    slug: 'alice-helper',
    backend: 'subagent',
    config: { model: 'scripted:helper' },
  });
  await agents.create(bob.user, {
    name: 'Bob private',
    slug: 'bob-private',
    config: { model: 'scripted:echo' },
  });
  client = clientFor(alice.token);
});
afterAll(async () => {
  await server.close();
  rmSync(scenarioDir, { recursive: true, force: true });
});

describe('GET /v1/models with the official openai client', () => {
  it("lists the caller's chat agents, not subagents or other users' private agents", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) {
      expect(model.object).toBe('model');
      expect(typeof model.created).toBe('number');
      expect(typeof model.owned_by).toBe('string');
      ids.push(model.id);
    }
    expect(ids).toEqual(expect.arrayContaining(['echo', 'slow', 'approver', 'broken', 'assistant']));
    expect(ids).not.toContain('alice-helper');
    expect(ids).not.toContain('researcher');
    expect(ids).not.toContain('bob-private');
  });

  it('retrieves one model; a subagent or a foreign private agent is 404', async () => {
    const echo = await client.models.retrieve('echo');
    expect(echo).toMatchObject({ id: 'echo', object: 'model', owned_by: alice.user.id });
    for (const id of ['alice-helper', 'bob-private', 'nope']) {
      const error = await apiError(client.models.retrieve(id));
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect(error.error).toMatchObject({ type: 'not_found_error', code: 'agent_not_found', param: 'model' });
    }
  });
});

describe('POST /v1/chat/completions with the official openai client', () => {
  it('answers a non-streaming completion from a new run in a new conversation', async () => {
    const completion = await client.chat.completions.create({
      model: 'echo',
      messages: [
        { role: 'system', content: 'ignored: the agent keeps its own prompt' },
        { role: 'user', content: 'hello there' },
      ],
    });
    const { conversation_id: conversationId, run_id: runId } = completion as unknown as Extended;
    expect(completion).toMatchObject({ id: `chatcmpl-${runId}`, object: 'chat.completion', model: 'echo' });
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]?.message).toMatchObject({
      role: 'assistant',
      content: 'Let me note that.\n\nNoted: hello there',
    });
    expect(completion.choices[0]?.finish_reason).toBe('stop');

    const run = await server.troupe.storage.runs.get(runId);
    expect(run).toMatchObject({
      status: 'completed',
      user_id: alice.user.id,
      conversation_id: conversationId,
      channel: 'api',
    });
    expect(run?.usage?.input_tokens).toBeGreaterThan(0);
    expect(completion.usage).toEqual({
      prompt_tokens: run?.usage?.input_tokens,
      completion_tokens: run?.usage?.output_tokens,
      total_tokens: (run?.usage?.input_tokens ?? 0) + (run?.usage?.output_tokens ?? 0),
    });
    const conversation = await server.troupe.storage.conversations.get(conversationId);
    expect(conversation).toMatchObject({ user_id: alice.user.id, title: 'hello there' });
  });

  it('streams chat.completion.chunk frames, the finish reason and the usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'streamed' }] }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const { run_id: runId } = chunks[0] as unknown as Extended;
    expect(
      chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.id === `chatcmpl-${runId}`),
    ).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Let me note that.\n\nNoted: streamed');
    const finishes = chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter((reason) => reason);
    expect(finishes).toEqual(['stop']);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    const run = await server.troupe.storage.runs.get(runId);
    expect(last?.usage?.prompt_tokens).toBe(run?.usage?.input_tokens);
    expect(last?.usage?.completion_tokens).toBe(run?.usage?.output_tokens);
  });

  it('ends the event stream with data: [DONE] on the wire', async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', stream: true, messages: [{ role: 'user', content: 'wire' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const frames = (await response.text()).split('\n\n').filter((frame) => frame.startsWith('data: '));
    expect(frames.at(-1)).toBe('data: [DONE]');
    expect(frames.slice(0, -1).every((frame) => JSON.parse(frame.slice('data: '.length)) !== null)).toBe(
      true,
    );
  });

  it('continues a conversation given its conversation_id, without replaying earlier messages', async () => {
    const first = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'first' }],
    });
    const { conversation_id: conversationId } = first as unknown as Extended;
    const second = await client.chat.completions.create(
      withConversation(
        {
          model: 'echo',
          messages: [
            { role: 'user', content: 'first' },
            { role: 'assistant', content: first.choices[0]?.message.content ?? '' },
            { role: 'user', content: 'second' },
          ],
        },
        conversationId,
      ),
    );
    expect((second as unknown as Extended).conversation_id).toBe(conversationId);
    expect(second.choices[0]?.message.content).toBe('Let me note that.\n\nNoted: second');
    const messages = await server.troupe.storage.messages.list(
      (await server.troupe.storage.conversations.get(conversationId))?.thread_id ?? '',
    );
    const userTexts = messages
      .filter((entry) => entry.message.role === 'user')
      .map((entry) => entry.message.content);
    expect(userTexts).toEqual(['first', 'second']);
    expect(await server.troupe.storage.runs.listByConversation(conversationId)).toHaveLength(2);

    // The conversation belongs to its agent: another model for it is refused before anything starts.
    const mismatch = await apiError(
      client.chat.completions.create(
        withConversation({ model: 'slow', messages: [{ role: 'user', content: 'x' }] }, conversationId),
      ),
    );
    expect(mismatch).toBeInstanceOf(OpenAI.BadRequestError);
    expect(mismatch.error).toMatchObject({ code: 'validation_failed', param: 'model' });
    expect(await server.troupe.storage.runs.listByConversation(conversationId)).toHaveLength(2);
  });

  it("refuses another user's conversation_id as not found, and starts nothing", async () => {
    const mine = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'private' }],
    });
    const { conversation_id: conversationId } = mine as unknown as Extended;
    await server.troupe.agents.create(bob.user, {
      name: 'Bob echo',
      slug: 'bob-echo',
      config: { model: 'scripted:echo' },
    });
    const bobRunsBefore = await server.troupe.storage.conversations.listForUser(bob.user.id, ['active']);
    const error = await apiError(
      clientFor(bob.token).chat.completions.create(
        withConversation(
          { model: 'bob-echo', messages: [{ role: 'user', content: 'hijack' }] },
          conversationId,
        ),
      ),
    );
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.error).toMatchObject({ code: 'conversation_not_found', type: 'not_found_error' });
    expect(await server.troupe.storage.runs.listByConversation(conversationId)).toHaveLength(1);
    expect(await server.troupe.storage.conversations.listForUser(bob.user.id, ['active'])).toEqual(
      bobRunsBefore,
    );
  });

  it('answers 404 for an unknown model or a subagent, in OpenAI error shape', async () => {
    for (const model of ['no-such-agent', 'alice-helper', 'bob-private']) {
      const error = await apiError(
        client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }),
      );
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect(error.status).toBe(404);
      expect(error.error).toEqual({
        message: `The model "${model}" does not exist or you do not have access to it`,
        type: 'not_found_error',
        param: 'model',
        code: 'agent_not_found',
      });
    }
  });

  it('answers 401 for a bad token', async () => {
    const error = await apiError(
      clientFor('trp_not-a-real-token').chat.completions.create({
        model: 'echo',
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.error).toMatchObject({ type: 'authentication_error', code: 'unauthorized' });
    expect(error.headers?.get('www-authenticate')).toContain('Bearer');
  });

  it('refuses what it cannot honour with 400 and the offending param', async () => {
    const lastNotUser = await apiError(
      client.chat.completions.create({
        model: 'echo',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
        ],
      }),
    );
    expect(lastNotUser).toBeInstanceOf(OpenAI.BadRequestError);
    expect(lastNotUser.error).toMatchObject({
      code: 'validation_failed',
      param: 'messages',
      type: 'invalid_request_error',
    });
    const tools = await apiError(
      client.chat.completions.create({
        model: 'echo',
        messages: [{ role: 'user', content: 'a' }],
        tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
      }),
    );
    expect(tools.error).toMatchObject({ code: 'validation_failed', param: 'tools' });
    const image = await apiError(
      client.chat.completions.create({
        model: 'echo',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
        ],
      }),
    );
    expect(image.error).toMatchObject({ code: 'validation_failed', param: 'messages' });
  });

  it('reports a failed run as a server error that must not be retried', async () => {
    const error = await apiError(
      client.chat.completions.create({ model: 'broken', messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.error).toMatchObject({ code: 'model_not_found', type: 'server_error' });
    expect(error.headers?.get('x-should-retry')).toBe('false');
  });

  it('ends the completion with a note when the agent waits for an approval', async () => {
    const completion = await client.chat.completions.create({
      model: 'approver',
      messages: [{ role: 'user', content: 'go' }],
    });
    const { run_id: runId, conversation_id: conversationId } = completion as unknown as Extended;
    const content = completion.choices[0]?.message.content ?? '';
    expect(
      content.startsWith('Writing.\n\n[The agent is waiting for a decision on its write_file call'),
    ).toBe(true);
    expect(content).toContain(`conversation ${conversationId}`);
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    const [approval] = await server.troupe.storage.approvals.listForRun(runId);
    expect(approval).toMatchObject({ tool_name: 'write_file', status: 'pending' });
  });

  it('cancels the run when the client closes a stream before the answer is complete', async () => {
    const stream = await client.chat.completions.create({
      model: 'slow',
      messages: [{ role: 'user', content: 'take your time' }],
      stream: true,
    });
    let runId = '';
    for await (const chunk of stream) {
      runId = (chunk as unknown as Extended).run_id;
      // The first text: the run is past its first model call and will now sit in its slow second step.
      if (chunk.choices[0]?.delta.content) break;
    }
    // Leaving the loop aborts the request; the server sees the connection close.
    stream.controller.abort();
    const awaited = await server.troupe.runs.await(alice.user, runId, 15_000);
    expect(awaited.run.status).toBe('cancelled');
  });

  it('answers unknown /v1 routes with an OpenAI-shaped 404', async () => {
    const response = await fetch(`${server.url}/v1/embeddings`, {
      headers: { authorization: `Bearer ${alice.token}` },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        message: 'No route for GET /v1/embeddings',
        type: 'not_found_error',
        param: null,
        code: 'route_not_found',
      },
    });
  });
});
