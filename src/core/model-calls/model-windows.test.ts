import { describe, expect, it } from 'vitest';
import {
  compactionThreshold,
  declaredWindowSchema,
  DEFAULT_MODEL_WINDOW,
  knownModelWindow,
  overflowInMessage,
  resolveModelWindow,
} from './model-windows.js';

describe('knownModelWindow', () => {
  it.each([
    ['gpt-4o', 128_000, 16_384],
    ['gpt-4o-2024-11-20', 128_000, 16_384],
    ['gpt-4o-2024-05-13', 128_000, 4_096],
    ['gpt-4o-mini-2024-07-18', 128_000, 16_384],
    ['gpt-4', 8_192, 8_192],
    ['gpt-4-0613', 8_192, 8_192],
    ['gpt-4-turbo-2024-04-09', 128_000, 4_096],
    ['gpt-4.1-mini', 1_047_576, 32_768],
    ['o3-mini', 200_000, 100_000],
    ['claude-3-5-sonnet-20241022', 200_000, 8_192],
    ['claude-3-5-haiku-latest', 200_000, 8_192],
    ['claude-sonnet-4-20250514', 200_000, 64_000],
    ['claude-opus-4-1-20250805', 200_000, 32_000],
    ['openai/gpt-4o', 128_000, 16_384],
    ['GPT-4O', 128_000, 16_384],
  ])('%s: the longest prefix at a boundary', (id, contextWindow, maxOutputTokens) => {
    expect(knownModelWindow(id)).toEqual({ contextWindow, maxOutputTokens });
  });

  it.each(['gpt-45', 'llama3', 'o10', 'claude', 'gpt-4oo'])('%s is not in the table', (id) => {
    expect(knownModelWindow(id)).toBeUndefined();
  });
});

describe('resolveModelWindow', () => {
  it('takes the agent, then the endpoint, then the table, then the default, figure by figure', () => {
    expect(resolveModelWindow('gpt-4o', { context_window: 50_000 }, { context_window: 9_000 })).toEqual({
      contextWindow: 50_000,
      maxOutputTokens: 16_384,
      source: 'agent',
    });
    expect(resolveModelWindow('x', undefined, { context_window: 9_000, max_output_tokens: 1_000 })).toEqual({
      contextWindow: 9_000,
      maxOutputTokens: 1_000,
      source: 'endpoint',
    });
    expect(resolveModelWindow('gpt-4o', {}, undefined).source).toBe('table');
    expect(resolveModelWindow('mystery', undefined, undefined)).toEqual({
      ...DEFAULT_MODEL_WINDOW,
      source: 'default',
    });
  });

  it('never leaves the answer more than half the window', () => {
    expect(resolveModelWindow('mystery', { context_window: 4_096 }, undefined).maxOutputTokens).toBe(2_048);
  });
});

describe('compactionThreshold', () => {
  it('is the share of what the window leaves beside the answer', () => {
    expect(compactionThreshold({ contextWindow: 128_000, maxOutputTokens: 16_000 }, 0.8)).toBe(89_600);
    expect(compactionThreshold({ contextWindow: 10, maxOutputTokens: 10 }, 0.8)).toBe(1);
  });
});

describe('overflowInMessage', () => {
  it("reads OpenAI's and Anthropic's wording", () => {
    expect(
      overflowInMessage(
        "This model's maximum context length is 4096 tokens. However, your messages resulted in 5120 tokens. Please reduce the length of the messages.",
      ),
    ).toEqual({ window: 4096, prompt: 5120 });
    expect(overflowInMessage('prompt is too long: 210012 tokens > 200000 maximum')).toEqual({
      window: 200_000,
      prompt: 210_012,
    });
    expect(
      overflowInMessage('Model openai:x failed (HTTP 400): maximum context length is 8192 tokens'),
    ).toEqual({
      window: 8192,
    });
    expect(overflowInMessage('prompt is too long')).toBeUndefined();
  });
});

describe('declaredWindowSchema', () => {
  it('reads numbers from text and refuses nonsense', () => {
    expect(declaredWindowSchema.parse({ context_window: '8192' })).toEqual({ context_window: 8192 });
    expect(declaredWindowSchema.safeParse({ context_window: 'lots' }).success).toBe(false);
    expect(declaredWindowSchema.safeParse({ max_output_tokens: '1.5' }).success).toBe(false);
  });
});
