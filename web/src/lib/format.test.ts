import { describe, expect, it } from 'vitest';
import { formatUsage, tokenDetailText, tokensWithDetail } from './format.ts';
import { usageLine } from './run-phase.ts';

describe('token counts with their cached and reasoning parts', () => {
  it('names only the non-zero parts', () => {
    expect(tokenDetailText({ cache_read_tokens: 800, cache_write_tokens: 0, reasoning_tokens: 0 })).toBe(
      '800 cached',
    );
    expect(tokenDetailText({ cache_read_tokens: 1200, cache_write_tokens: 30, reasoning_tokens: 64 })).toBe(
      '1,200 cached, 30 written to cache, 64 reasoning',
    );
    expect(tokenDetailText({})).toBe('');
    expect(tokenDetailText(null)).toBe('');
    expect(tokensWithDetail(1234, { cache_read_tokens: 800 })).toBe('1234 tokens (800 cached)');
    expect(tokensWithDetail(52, { cache_read_tokens: 0 })).toBe('52 tokens');
  });

  it('shows them in the usage lines of the panel and the run', () => {
    const usage = {
      input_tokens: 1000,
      output_tokens: 234,
      total_tokens: 1234,
      model_calls: 2,
      aborted_model_calls: 0,
      cache_read_tokens: 800,
      reasoning_tokens: 100,
    };
    expect(usageLine(usage)).toBe('1234 tokens (800 cached, 100 reasoning) · 2 model calls');
    expect(formatUsage(usage)).toBe(
      '1234 tokens (1000 in / 234 out; 800 cached, 100 reasoning), 2 model calls',
    );
    expect(usageLine({ ...usage, cache_read_tokens: 0, reasoning_tokens: 0 })).toBe(
      '1234 tokens · 2 model calls',
    );
  });
});
