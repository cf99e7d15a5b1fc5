import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TroupeError } from '../../core/errors.js';
import { createModelProvider } from './create-model-provider.js';
import { parseModelSpec } from './parse-model-spec.js';

function provider(scenarios: Record<string, string> = { demo: 'rules: [{ steps: [{ text: hi }] }]' }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'troupe-provider-'));
  for (const [name, source] of Object.entries(scenarios))
    writeFileSync(path.join(dir, `${name}.yaml`), source);
  return {
    dir,
    models: createModelProvider({
      scenarioDir: dir,
      openaiCompatible: {
        local: { baseURL: 'http://127.0.0.1:9/v1' },
        vllm: { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k' },
      },
      openaiApiKey: 'sk-test',
      anthropicApiKey: 'ak-test',
    }),
  };
}

function thrown(fn: () => unknown): TroupeError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TroupeError);
    return error as TroupeError;
  }
  throw new Error('expected a TroupeError');
}

describe('parseModelSpec', () => {
  it('keeps colons inside model ids', () => {
    expect(parseModelSpec('openai-compatible:ollama:llama3:8b')).toEqual({
      provider: 'openai-compatible',
      endpoint: 'ollama',
      model: 'llama3:8b',
    });
    expect(parseModelSpec('openai:ft:gpt-4o:org::x1')).toEqual({
      provider: 'openai',
      model: 'ft:gpt-4o:org::x1',
    });
    expect(parseModelSpec('mistral:large')).toEqual({ provider: 'unknown', name: 'mistral' });
  });

  it.each([
    '',
    'gpt-4o',
    ':gpt',
    'openai:',
    'openai: gpt',
    'openai-compatible:local',
    'openai-compatible::m',
    'openai-compatible:local:',
    'scripted:../etc',
    'scripted:a/b',
    'Open AI:x',
  ])('rejects %j as invalid_model_spec', (spec) => {
    expect(thrown(() => parseModelSpec(spec)).code).toBe('invalid_model_spec');
  });
});

describe('createModelProvider', () => {
  it('resolves every provider with its label and caches per spec', () => {
    const { models } = provider();
    const openai = models.resolve('openai:gpt-4o-mini');
    expect(openai).toMatchObject({
      provider: 'openai',
      spec: 'openai:gpt-4o-mini',
      label: 'openai:gpt-4o-mini',
    });
    expect(openai.model.provider).toBe('openai.chat');
    expect(openai.model.modelId).toBe('gpt-4o-mini');
    expect(models.resolve('anthropic:claude-x')).toMatchObject({
      provider: 'anthropic',
      label: 'anthropic:claude-x',
    });
    const compatible = models.resolve('openai-compatible:vllm:qwen:7b');
    expect(compatible).toMatchObject({
      provider: 'openai-compatible',
      label: 'openai-compatible:vllm:qwen:7b',
    });
    expect(compatible.model.modelId).toBe('qwen:7b');
    const scripted = models.resolve('scripted:demo');
    expect(scripted).toMatchObject({ provider: 'scripted', label: 'scripted:demo (scripted — not an LLM)' });
    expect(scripted.model.provider).toBe('scripted');
    expect(models.resolve('scripted:demo')).toBe(scripted);
    expect(models.resolve('openai:gpt-4o-mini')).toBe(openai);
  });

  it('says what is configured when the provider is unknown', () => {
    const error = thrown(() => provider().models.resolve('mistral:large'));
    expect(error.code).toBe('model_not_found');
    expect(error.message).toMatch(
      /Unknown model provider "mistral".*openai-compatible \(endpoints: local, vllm\).*scripted \(scenarios: demo\)/,
    );
  });

  it('names the configured endpoints when the endpoint is unknown', () => {
    const error = thrown(() => provider().models.resolve('openai-compatible:ollama:llama3'));
    expect(error.code).toBe('model_not_found');
    expect(error.message).toMatch(/endpoint "ollama".*configured endpoints: local, vllm/);
  });

  it('names the available scenarios when one is missing, also after a deletion', async () => {
    const { dir, models } = provider({
      demo: 'rules: [{ steps: [{ text: hi }] }]',
      other: 'rules: [{ steps: [{ text: x }] }]',
    });
    const missing = thrown(() => models.resolve('scripted:nope'));
    expect(missing.code).toBe('model_not_found');
    expect(missing.message).toMatch(/Scenario "nope" not found.*available scenarios: demo, other/);
    const other = models.resolve('scripted:other');
    rmSync(path.join(dir, 'other.yaml'));
    // The model already resolved finds its file gone at its next call, which fails as a missing one does.
    const call = other.model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    await expect(call).rejects.toMatchObject({
      code: 'model_not_found',
      message: expect.stringMatching(/Scenario "other" not found.*available scenarios: demo/) as unknown,
    });
  });

  it('rejects bad syntax before looking anything up', () => {
    expect(thrown(() => provider().models.resolve('gpt-4o')).code).toBe('invalid_model_spec');
  });
});

describe('the demo scenarios', () => {
  const scenarioDir = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
  const models = createModelProvider({ scenarioDir, openaiCompatible: {} });

  it('demo writes a note, reads it back and quotes the input', async () => {
    const files = new Map<string, string>();
    const tools = {
      write_file: tool({
        description: 'Write a file',
        inputSchema: z.object({ path: z.string(), content: z.string() }),
        execute: ({ path: filePath, content }) => {
          files.set(filePath, content);
          return `Wrote ${content.length} characters to ${filePath}`;
        },
      }),
      read_file: tool({
        description: 'Read a file',
        inputSchema: z.object({ path: z.string() }),
        execute: ({ path: filePath }) => files.get(filePath) ?? 'file not found',
      }),
      ls: tool({
        description: 'List files',
        inputSchema: z.object({ path: z.string().optional() }),
        execute: () => [...files.keys()],
      }),
    };
    const result = streamText({
      model: models.resolve('scripted:demo').model,
      prompt: 'Remember the milk',
      tools,
      stopWhen: stepCountIs(10),
    });
    const text = await result.text;
    const steps = await result.steps;
    expect(steps.map((s) => s.toolCalls.map((c) => c.toolName))).toEqual([['write_file'], ['read_file'], []]);
    expect(files.get('notes/hello.md')).toBe('# Hello\n\nRemember the milk\n');
    expect(text).toContain('# Hello\n\nRemember the milk');
    expect(text).toContain('You said: "Remember the milk"');
  });

  it.each(['researcher', 'summarizer', 'analyst'])('%s answers with text about the input', async (name) => {
    // The researcher reads its skill and looks around with `ls` before it answers; the others answer at once.
    const ls = tool({
      description: 'List files',
      inputSchema: z.object({ path: z.string().optional() }),
      execute: () => [],
    });
    const readFile = tool({
      description: 'Read a file',
      inputSchema: z.object({ path: z.string() }),
      execute: () => '',
    });
    const result = streamText({
      model: models.resolve(`scripted:${name}`).model,
      prompt: 'quarterly churn',
      tools: { ls, read_file: readFile },
      stopWhen: stepCountIs(5),
    });
    expect(await result.text).toContain('quarterly churn');
    expect(await result.finishReason).toBe('stop');
  });
});
