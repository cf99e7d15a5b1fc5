import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { generateText, streamText, tool, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createModelProvider } from '../create-model-provider.js';

const tools = {
  write_file: tool({
    description: 'Write a file',
    inputSchema: z.object({ path: z.string(), content: z.string() }),
  }),
  read_file: tool({ description: 'Read a file', inputSchema: z.object({ path: z.string() }) }),
};

function scenarioModel(yamlText: string, name = 'test'): LanguageModelV3 {
  const dir = mkdtempSync(path.join(tmpdir(), 'troupe-scripted-'));
  writeFileSync(path.join(dir, `${name}.yaml`), yamlText);
  return createModelProvider({ scenarioDir: dir, openaiCompatible: {} }).resolve(`scripted:${name}`).model;
}

const NOTE = `
rules:
  - name: slow
    when: { contains: SLOW }
    steps:
      - text: "{{input}} is taking its time"
        delay_ms: 5000
        chunk_size: 4
  - name: numbers
    when: { matches: "^\\\\d+$" }
    steps:
      - text: "a number: {{input}}"
  - name: default
    steps:
      - text: Writing.
        chunk_size: 3
        tool_calls:
          - name: write_file
            args: { path: notes/hello.md, content: "# {{input}}" }
      - tool_calls:
          - name: read_file
            args: { path: notes/hello.md }
      - text: "It says: {{last_tool_result}} (you said {{input}})"
`;

/** History of a run that already played the first `turns` steps of the default rule. */
function history(turns: number): ModelMessage[] {
  const messages: ModelMessage[] = [{ role: 'user', content: 'hello world' }];
  const calls = [
    {
      id: 'c1',
      name: 'write_file',
      input: { path: 'notes/hello.md', content: '# hello world' },
      result: 'written',
    },
    { id: 'c2', name: 'read_file', input: { path: 'notes/hello.md' }, result: '# hello world' },
  ];
  for (const call of calls.slice(0, turns)) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input }],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: call.id,
          toolName: call.name,
          output: { type: 'text', value: call.result },
        },
      ],
    });
  }
  return messages;
}

async function collect(
  stream: ReadableStream<LanguageModelV3StreamPart>,
): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('scripted model through streamText', () => {
  it('streams the first step: chunked text, a validated tool call, usage and finish reason', async () => {
    const model = scenarioModel(NOTE);
    expect([model.specificationVersion, model.provider, model.modelId]).toEqual(['v3', 'scripted', 'test']);
    const result = streamText({ model, prompt: 'hello world', tools });
    const deltas: string[] = [];
    const calls: { name: string; input: unknown; id: string }[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') deltas.push(part.text);
      if (part.type === 'tool-call')
        calls.push({ name: part.toolName, input: part.input, id: part.toolCallId });
    }
    expect(deltas).toEqual(['Wri', 'tin', 'g.']);
    expect(calls.map(({ name, input }) => ({ name, input }))).toEqual([
      { name: 'write_file', input: { path: 'notes/hello.md', content: '# hello world' } },
    ]);
    expect(calls[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(await result.finishReason).toBe('tool-calls');
    const usage = await result.usage;
    const output =
      'Writing.'.length +
      'write_file'.length +
      JSON.stringify({ path: 'notes/hello.md', content: '# hello world' }).length;
    expect(usage.inputTokens).toBe(Math.ceil('hello world'.length / 4));
    expect(usage.outputTokens).toBe(Math.ceil(output / 4));
  });

  it('emits well-formed V3 stream parts', async () => {
    const model = scenarioModel(NOTE);
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [
        {
          type: 'function',
          name: 'write_file',
          inputSchema: {
            type: 'object',
            properties: { path: { type: 'string' }, content: { type: 'string' } },
            required: ['path', 'content'],
          },
        },
      ],
    });
    const parts = await collect(stream);
    expect(parts.map((p) => p.type)).toEqual([
      'stream-start',
      'response-metadata',
      'text-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
      'finish',
    ]);
    const call = parts.find((p) => p.type === 'tool-call');
    expect(call?.type === 'tool-call' && JSON.parse(call.input)).toEqual({
      path: 'notes/hello.md',
      content: '# hi',
    });
    const finish = parts.at(-1);
    expect(finish).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'tool-calls', raw: 'tool-calls' },
      usage: { inputTokens: { total: 1 } },
    });
    expect(finish?.type === 'finish' && finish.usage.outputTokens.total).toBeGreaterThan(0);
  });

  it('picks the step from the messages after the last user message', async () => {
    const model = scenarioModel(NOTE);
    const second = streamText({ model, messages: history(1), tools });
    expect((await second.toolCalls).map((c) => [c.toolName, c.input])).toEqual([
      ['read_file', { path: 'notes/hello.md' }],
    ]);
    expect(await second.text).toBe('');

    const third = streamText({ model, messages: history(2), tools });
    expect(await third.text).toBe('It says: # hello world (you said hello world)');
    expect(await third.toolCalls).toEqual([]);
    expect(await third.finishReason).toBe('stop');
  });

  it('settles with text past the last step and restarts on a new user message', async () => {
    const model = scenarioModel(NOTE);
    const past: ModelMessage[] = [...history(2), { role: 'assistant', content: 'It says: …' }];
    const settled = await generateText({ model, messages: past, tools });
    expect(settled.text).toBe('It says: # hello world (you said hello world)');
    expect(settled.toolCalls).toEqual([]);

    const again = await generateText({
      model,
      messages: [...past, { role: 'user', content: 'next' }],
      tools,
    });
    expect(again.toolCalls.map((c) => c.input)).toEqual([{ path: 'notes/hello.md', content: '# next' }]);

    const onlyTools = scenarioModel(
      'rules: [{ steps: [{ tool_calls: [{ name: read_file, args: { path: a } }] }] }]',
      'loop',
    );
    const done = await generateText({
      model: onlyTools,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'called' },
      ],
      tools,
    });
    expect(done.text).toBe('(scenario loop finished)');
    expect(done.finishReason).toBe('stop');
  });

  it('matches rules: contains is case-insensitive, matches is a regex, else the default', async () => {
    const model = scenarioModel(NOTE);
    expect((await generateText({ model, prompt: '12345', tools })).text).toBe('a number: 12345');
    expect((await generateText({ model, prompt: '12345 apples', tools })).text).toBe('Writing.');
    const none = scenarioModel('rules: [{ when: { contains: zebra }, steps: [{ text: stripes }] }]', 'picky');
    expect((await generateText({ model: none, prompt: 'a ZEBRA' })).text).toBe('stripes');
    expect((await generateText({ model: none, prompt: 'a horse' })).text).toBe(
      '(scenario picky has no rule for this message)',
    );
  });

  it('gives the same tool-call ids for the same prompt, different ones for another', async () => {
    const model = scenarioModel(NOTE);
    const ids = async (prompt: string) =>
      (await generateText({ model, prompt, tools })).toolCalls.map((c) => c.toolCallId);
    expect(await ids('a')).toEqual(await ids('a'));
    expect(await ids('a')).not.toEqual(await ids('b'));
  });
});
