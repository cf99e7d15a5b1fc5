import { getEventListeners } from 'node:events';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { generateText, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isTroupeError } from '../../../core/errors.js';
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
    when: { contains: slow }
    steps:
      - text: "{{input}} is taking its time"
        delay_ms: 5000
        chunk_size: 4
  - name: default
    steps:
      - tool_calls: [{ name: write_file, args: { path: notes/hello.md, content: "{{input}}" } }]
`;

describe('scripted model cancellation', () => {
  it('rejects promptly with the abort reason in the middle of a slow step', async () => {
    const model = scenarioModel(NOTE);
    const controller = new AbortController();
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'go slow' }] }],
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    const seen: string[] = [];
    let abortedAt = 0;
    const reason = new Error('run cancelled');
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (value.type === 'text-delta') {
          seen.push(value.delta);
          abortedAt = Date.now();
          controller.abort(reason);
        }
      }
    })();
    await expect(reading).rejects.toBe(reason);
    expect(seen).toEqual(['go s']);
    // The step still had ~4 s of delay left: the rejection must not wait for it.
    expect(Date.now() - abortedAt).toBeLessThan(1000);
  });

  it("leaves no listener on the caller's signal once a turn is read to its end or cancelled", async () => {
    const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hello' }] }];
    const controller = new AbortController();
    // A turn without a delay has nothing to interrupt: it never listens, and is whole in its stream.
    const whole = await scenarioModel('rules:\n  - steps:\n      - text: "a whole answer"\n').doStream({
      prompt,
      abortSignal: controller.signal,
    });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const wholeTypes: string[] = [];
    for await (const part of whole.stream) wholeTypes.push(part.type);
    expect(wholeTypes).toEqual([
      'stream-start',
      'response-metadata',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);

    const model = scenarioModel('rules:\n  - steps:\n      - text: "a whole answer"\n        delay_ms: 4\n');
    const read = await model.doStream({ prompt, abortSignal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const types: string[] = [];
    for await (const part of read.stream) types.push(part.type);
    expect(types).toContain('finish');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

    const dropped = await model.doStream({ prompt, abortSignal: controller.signal });
    await dropped.stream.cancel(new Error('consumer gone'));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('ends streamText early when the caller aborts', async () => {
    const model = scenarioModel(NOTE);
    const controller = new AbortController();
    const started = Date.now();
    const result = streamText({ model, prompt: 'slow please', abortSignal: controller.signal });
    const types: string[] = [];
    for await (const part of result.fullStream) {
      types.push(part.type);
      if (part.type === 'text-delta') controller.abort();
    }
    expect(types).toContain('abort');
    expect(types.filter((t) => t === 'text-delta')).toHaveLength(1);
    expect(types).not.toContain('finish');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('rejects doGenerate with the abort reason during the delay', async () => {
    const model = scenarioModel(NOTE);
    const signal = AbortSignal.timeout(50);
    const started = Date.now();
    await expect(
      model.doGenerate({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'slow' }] }],
        abortSignal: signal,
      }),
    ).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('scripted tool-call validation', () => {
  const badArgs = `
rules:
  - name: writer
    steps:
      - text: ok
      - tool_calls: [{ name: write_file, args: { path: 5, content: x } }]
`;

  it('rejects arguments that break the tool schema, naming scenario, rule, step and tool', async () => {
    const model = scenarioModel(badArgs, 'bad-args');
    const promise = generateText({
      model,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'ok' },
      ],
      tools,
    });
    await expect(promise).rejects.toSatisfy((error) => isTroupeError(error, 'scenario_invalid'));
    await expect(promise).rejects.toThrow(
      /Scenario "bad-args", rule "writer", step 2, tool "write_file".*path/,
    );
  });

  it('rejects a tool that is not offered in the call, through streamText too', async () => {
    const model = scenarioModel(NOTE);
    const result = streamText({
      model,
      prompt: 'hello',
      tools: { read_file: tools.read_file },
      onError: () => undefined, // the error is asserted from the stream below
    });
    const errors: unknown[] = [];
    for await (const part of result.fullStream) if (part.type === 'error') errors.push(part.error);
    expect(errors).toHaveLength(1);
    expect(isTroupeError(errors[0], 'scenario_invalid')).toBe(true);
    expect(String(errors[0])).toMatch(
      /rule "default", step 1, tool "write_file": the tool is not offered.*offered: read_file/,
    );
  });
});

describe('scripted calls marked unoffered', () => {
  const UNOFFERED = `
rules:
  - steps:
      - tool_calls: [{ name: write_file, args: { anything: 1 }, unoffered: true }]
`;

  it('emits a call to a tool that is not offered, which the SDK reports as unavailable', async () => {
    const result = streamText({
      model: scenarioModel(UNOFFERED, 'unoffered'),
      prompt: 'x',
      tools: { read_file: tools.read_file },
    });
    const calls: { toolName: string; input: unknown; invalid?: boolean; error?: unknown }[] = [];
    for await (const part of result.fullStream) if (part.type === 'tool-call') calls.push(part);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolName: 'write_file', input: { anything: 1 }, invalid: true });
    expect(String(calls[0]?.error)).toMatch(/unavailable tool 'write_file'/);
  });

  it('refuses the mark when the tool is offered after all, so a test cannot pass by accident', async () => {
    const promise = generateText({ model: scenarioModel(UNOFFERED, 'unoffered'), prompt: 'x', tools });
    await expect(promise).rejects.toThrow(
      /tool "write_file": the call is marked `unoffered` but the tool is offered/,
    );
  });
});

describe('scripted model and its file', () => {
  it('plays an edited scenario on the next call and reports a broken one as scenario_invalid', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'troupe-scripted-'));
    const file = path.join(dir, 'live.yaml');
    const write = (source: string, seconds: number) => {
      writeFileSync(file, source);
      utimesSync(file, seconds, seconds);
    };
    write('rules: [{ steps: [{ text: before }] }]', 1_000);
    const model = createModelProvider({ scenarioDir: dir, openaiCompatible: {} }).resolve(
      'scripted:live',
    ).model;
    expect((await generateText({ model, prompt: 'x' })).text).toBe('before');

    write('rules: [{ steps: [{ text: after! }] }]', 2_000);
    expect((await generateText({ model, prompt: 'x' })).text).toBe('after!');

    write('rules: [{ steps: [{ txt: oops }] }]', 3_000);
    const failure = generateText({ model, prompt: 'x' });
    await expect(failure).rejects.toSatisfy((error) => isTroupeError(error, 'scenario_invalid'));
    await expect(failure).rejects.toThrow(file);
  });
});
