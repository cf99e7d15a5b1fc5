import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiError,
  useOpenAiApiWorld,
  type Extended,
  type OpenAiApiWorld,
} from '../helpers/openai-api-world.js';
import type { TestServer } from '../helpers/start-test-server.js';

const world = useOpenAiApiWorld();
let server: TestServer;
let alice: OpenAiApiWorld['alice'];
let client: OpenAI;
const clientFor = (token: string) => world.clientFor(token);
beforeAll(() => {
  ({ server, alice, client } = world);
});

describe('POST /v1/chat/completions with the official openai client: refusals, failures and cancels', () => {
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
    // The step that asked for the approval is counted: its tokens were saved before the wait was announced.
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    const parked = await server.troupe.storage.runs.get(runId);
    expect(completion.usage).toMatchObject({
      prompt_tokens: parked?.usage?.input_tokens,
      completion_tokens: parked?.usage?.output_tokens,
    });
  });

  it('counts the tokens of the step that asked a question when it stops there', async () => {
    const completion = await client.chat.completions.create({
      model: 'asker',
      messages: [{ role: 'user', content: 'go' }],
    });
    const { run_id: runId } = completion as unknown as Extended;
    expect(completion.choices[0]?.message.content).toContain('One question first.');
    const parked = await server.troupe.storage.runs.get(runId);
    expect(parked?.status).toBe('input_required');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    expect(completion.usage).toMatchObject({
      prompt_tokens: parked?.usage?.input_tokens,
      completion_tokens: parked?.usage?.output_tokens,
    });
  });

  it('names the field at fault in param for every refusal it can', async () => {
    const base = { model: 'echo', messages: [{ role: 'user' as const, content: 'x' }] };
    const cases: [Record<string, unknown>, string, number][] = [
      [{ ...base, conversation_id: 'cnv_does_not_exist' }, 'conversation_id', 404],
      [{ ...base, not_a_field: true }, 'not_a_field', 400],
      [{ ...base, stream_options: { include_usage: 'yes' } }, 'stream_options.include_usage', 400],
      [{ ...base, messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role', 400],
      [{ ...base, n: 2 }, 'n', 400],
    ];
    for (const [body, param, status] of cases) {
      const error = await apiError(
        client.chat.completions.create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming),
      );
      expect([error.status, error.error]).toMatchObject([status, { param }]);
    }
    // A conversation with a run still going is busy: the conversation is at fault.
    const first = await client.chat.completions.create({ ...base, model: 'slow', stream: true });
    let conversationId = '';
    for await (const chunk of first) {
      conversationId = (chunk as unknown as Extended).conversation_id;
      break;
    }
    const busy = await apiError(
      client.chat.completions.create({
        ...base,
        model: 'slow',
        conversation_id: conversationId,
      } as OpenAI.ChatCompletionCreateParamsNonStreaming),
    );
    first.controller.abort();
    expect([busy.status, busy.error]).toMatchObject([409, { code: 'run_busy', param: 'conversation_id' }]);
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
