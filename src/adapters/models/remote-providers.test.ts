import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createModelProvider } from './create-model-provider.js';
import { startFakeAnthropicServer } from '../../../test/helpers/models/fake-anthropic-server.js';
import type {
  FakeModelResponse,
  FakeModelServer,
  RecordedRequest,
} from '../../../test/helpers/models/fake-model-server.js';
import { startFakeOpenAiServer } from '../../../test/helpers/models/fake-openai-server.js';

/** How each provider's wire format carries the bits the assertions look at. */
interface Wire {
  spec: string;
  start: (responses: FakeModelResponse[]) => Promise<FakeModelServer>;
  providerFor: (baseURL: string) => ReturnType<typeof createModelProvider>;
  /** Each offered tool's name and JSON schema. */
  tools: (request: RecordedRequest) => { name: string; schema: unknown }[];
  toolResult: (request: RecordedRequest) => { id: string; content: unknown } | undefined;
}

const scenarioDir = mkdtempSync(path.join(tmpdir(), 'troupe-remote-'));

// Parsing the recorded bodies also checks that the SDK sent the shapes each wire format documents.
const openAiBody = z.object({
  tools: z
    .array(
      z.object({
        type: z.literal('function'),
        function: z.object({ name: z.string(), parameters: z.unknown() }),
      }),
    )
    .optional(),
  messages: z.array(
    z.looseObject({ role: z.string(), tool_call_id: z.string().optional(), content: z.unknown().optional() }),
  ),
});
const anthropicBody = z.object({
  tools: z.array(z.object({ name: z.string(), input_schema: z.unknown() }).loose()).optional(),
  messages: z.array(
    z.object({
      role: z.string(),
      content: z.union([
        z.string(),
        z.array(
          z.looseObject({
            type: z.string(),
            tool_use_id: z.string().optional(),
            content: z.unknown().optional(),
          }),
        ),
      ]),
    }),
  ),
});

const openAiWire = {
  tools: (r: RecordedRequest) =>
    (openAiBody.parse(r.body).tools ?? []).map((t) => ({
      name: t.function.name,
      schema: t.function.parameters,
    })),
  toolResult: (r: RecordedRequest) => {
    const message = openAiBody.parse(r.body).messages.find((m) => m.role === 'tool');
    return message?.tool_call_id ? { id: message.tool_call_id, content: message.content } : undefined;
  },
};

const wires: Wire[] = [
  {
    spec: 'openai:gpt-test',
    start: (responses) => startFakeOpenAiServer({ responses }),
    providerFor: (baseURL) =>
      createModelProvider({
        scenarioDir,
        openaiCompatible: {},
        openaiBaseUrl: baseURL,
        openaiApiKey: 'sk-test',
      }),
    ...openAiWire,
  },
  {
    spec: 'openai-compatible:local:qwen-test',
    start: (responses) => startFakeOpenAiServer({ responses }),
    providerFor: (baseURL) =>
      createModelProvider({ scenarioDir, openaiCompatible: { local: { baseURL, apiKey: 'local-key' } } }),
    ...openAiWire,
  },
  {
    spec: 'anthropic:claude-test',
    start: (responses) => startFakeAnthropicServer({ responses }),
    providerFor: (baseURL) =>
      createModelProvider({
        scenarioDir,
        openaiCompatible: {},
        anthropicBaseUrl: baseURL,
        anthropicApiKey: 'ak-test',
      }),
    tools: (r) =>
      (anthropicBody.parse(r.body).tools ?? []).map((t) => ({ name: t.name, schema: t.input_schema })),
    toolResult: (r) => {
      for (const message of anthropicBody.parse(r.body).messages) {
        if (typeof message.content === 'string') continue;
        const part = message.content.find((p) => p.type === 'tool_result');
        if (part?.tool_use_id) return { id: part.tool_use_id, content: part.content };
      }
      return undefined;
    },
  },
];

const readFileTool = tool({
  description: 'Read a file of the project',
  inputSchema: z.object({ path: z.string() }),
  execute: ({ path: filePath }) => Promise.resolve(`contents of ${filePath}`),
});

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(wires)('$spec against a fake server', (wire) => {
  const twoSteps: FakeModelResponse[] = [
    {
      text: 'Let me look.',
      toolCalls: [{ id: 'call-read-1', name: 'read_file', args: { path: 'notes/a.md' } }],
      usage: { inputTokens: 11, outputTokens: 7 },
    },
    { text: 'The file says hello, and that is all.', usage: { inputTokens: 23, outputTokens: 9 } },
  ];

  it('streams a tool call, then the final text, across two steps', async () => {
    server = await wire.start(twoSteps);
    const resolved = wire.providerFor(server.baseURL).resolve(wire.spec);
    expect(resolved.label).toBe(wire.spec);

    const result = streamText({
      model: resolved.model,
      system: 'You read files.',
      prompt: 'What is in notes/a.md?',
      tools: { read_file: readFileTool },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      maxOutputTokens: 256,
    });
    const toolCalls: { toolCallId: string; toolName: string; input: unknown }[] = [];
    let deltas = 0;
    for await (const part of result.fullStream) {
      if (part.type === 'tool-call') toolCalls.push(part);
      if (part.type === 'text-delta') deltas++;
      if (part.type === 'error') throw part.error;
    }

    expect(toolCalls).toEqual([
      expect.objectContaining({
        toolCallId: 'call-read-1',
        toolName: 'read_file',
        input: { path: 'notes/a.md' },
      }),
    ]);
    expect(deltas).toBeGreaterThan(2);
    expect(await result.text).toBe('The file says hello, and that is all.');
    const steps = await result.steps;
    expect(steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
    const usage = await result.totalUsage;
    expect(usage.inputTokens).toBe(34);
    expect(usage.outputTokens).toBe(16);

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests as [RecordedRequest, RecordedRequest];
    expect(first.body.stream).toBe(true);
    expect(first.body.model).toBe(wire.spec.split(':').at(-1));
    expect(wire.tools(first).map((t) => t.name)).toEqual(['read_file']);
    expect(wire.tools(first)[0]?.schema).toMatchObject({
      properties: { path: { type: 'string' } },
      required: ['path'],
    });
    expect(wire.toolResult(first)).toBeUndefined();
    const toolResult = wire.toolResult(second);
    expect(toolResult?.id).toBe('call-read-1');
    expect(JSON.stringify(toolResult?.content)).toContain('contents of notes/a.md');
  });

  it('speaks the non-streaming format too', async () => {
    server = await wire.start(twoSteps);
    const resolved = wire.providerFor(server.baseURL).resolve(wire.spec);
    const result = await generateText({
      model: resolved.model,
      prompt: 'What is in notes/a.md?',
      tools: { read_file: readFileTool },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      maxOutputTokens: 256,
    });
    expect(result.steps[0]?.toolCalls.map((c) => [c.toolName, c.input])).toEqual([
      ['read_file', { path: 'notes/a.md' }],
    ]);
    expect(result.text).toBe('The file says hello, and that is all.');
    expect(result.totalUsage.inputTokens).toBe(34);
    expect(result.totalUsage.outputTokens).toBe(16);
    expect(server.requests.map((r) => r.body.stream ?? false)).toEqual([false, false]);
    expect(wire.toolResult(server.requests[1] as RecordedRequest)?.id).toBe('call-read-1');
  });

  it('surfaces an HTTP error from the server', async () => {
    server = await wire.start([{ error: { status: 400, message: 'model is overloaded with tests' } }]);
    const resolved = wire.providerFor(server.baseURL).resolve(wire.spec);
    await expect(
      generateText({ model: resolved.model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 256 }),
    ).rejects.toThrow(/overloaded with tests/);
  });
});

describe('fake servers', () => {
  it('send usage in the stream only when the client asks for it, like OpenAI', async () => {
    server = await startFakeOpenAiServer({ responses: [{ text: 'hi' }] });
    const response = await fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    const body = await response.text();
    expect(body).toContain('"object":"chat.completion.chunk"');
    expect(body).not.toContain('"usage"');
    expect(body.trim().endsWith('data: [DONE]')).toBe(true);
  });

  it('refuse, like the real APIs, a prompt whose tool calls are not answered right after their turn', async () => {
    const cases = [
      {
        start: startFakeOpenAiServer,
        path: '/chat/completions',
        turn: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
        },
        result: { role: 'tool', tool_call_id: 'c1', content: 'ok' },
        stray: { role: 'tool', tool_call_id: 'c9', content: 'ok' },
        missing: /did not have response messages: c1/,
      },
      {
        start: startFakeAnthropicServer,
        path: '/messages',
        turn: { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'ls', input: {} }] },
        result: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ok' }] },
        stray: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c9', content: 'ok' }] },
        missing: /`tool_use` ids were found without `tool_result` blocks immediately after: c1/,
      },
    ];
    for (const wire of cases) {
      const fake = await wire.start({ responses: [{ text: 'fine' }] });
      server = fake;
      const send = async (messages: unknown[]) => {
        const response = await fetch(`${fake.baseURL}${wire.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', max_tokens: 16, messages }),
        });
        return { status: response.status, text: await response.text() };
      };
      const dangling = await send([
        { role: 'user', content: 'a' },
        wire.turn,
        { role: 'user', content: 'b' },
      ]);
      expect(dangling.status).toBe(400);
      expect(dangling.text).toMatch(wire.missing);
      expect((await send([{ role: 'user', content: 'a' }, wire.turn])).status).toBe(400);
      expect((await send([{ role: 'user', content: 'a' }, wire.stray])).text).toMatch(/c9/);
      // The refusals used no scripted response: the valid prompt still gets the first one.
      const valid = await send([{ role: 'user', content: 'a' }, wire.turn, wire.result]);
      expect(valid).toMatchObject({ status: 200, text: expect.stringContaining('fine') as string });
      await fake.close();
      server = undefined;
    }
  });

  it('answer 400 once the scripted responses run out and 404 off the endpoint', async () => {
    const fake = await startFakeAnthropicServer({ responses: [] });
    server = fake;
    const post = (suffix: string) =>
      fetch(`${fake.baseURL}${suffix}`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', messages: [] }),
      });
    expect((await post('/messages')).status).toBe(400);
    expect((await post('/elsewhere')).status).toBe(404);
    expect(fake.requests).toHaveLength(1);
  });
});
