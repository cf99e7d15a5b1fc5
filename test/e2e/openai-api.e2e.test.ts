import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiError,
  useOpenAiApiWorld,
  withConversation,
  type Extended,
  type OpenAiApiWorld,
} from '../helpers/openai-api-world.js';
import type { TestServer } from '../helpers/start-test-server.js';

const world = useOpenAiApiWorld();
let server: TestServer;
let alice: OpenAiApiWorld['alice'];
let bob: OpenAiApiWorld['bob'];
let client: OpenAI;
const clientFor = (token: string) => world.clientFor(token);
beforeAll(() => {
  ({ server, alice, bob, client } = world);
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
});
