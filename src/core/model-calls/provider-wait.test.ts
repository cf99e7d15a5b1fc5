import { describe, expect, it } from 'vitest';
import { parseDurationMs, providerWaitMs } from './provider-wait.js';

const NOW = Date.parse('2026-12-05T12:00:00.000Z');

describe('providerWaitMs', () => {
  it('reads retry-after-ms first, then retry-after in seconds or as an HTTP date', () => {
    expect(providerWaitMs({ 'retry-after-ms': '1500', 'retry-after': '9' }, NOW)).toBe(1500);
    expect(providerWaitMs({ 'Retry-After': '2' }, NOW)).toBe(2000);
    expect(providerWaitMs({ 'retry-after': '0.25' }, NOW)).toBe(250);
    expect(providerWaitMs({ 'retry-after': 'Sat, 05 Dec 2026 12:00:30 GMT' }, NOW)).toBe(30_000);
    // A date in the past means "now", never a negative wait.
    expect(providerWaitMs({ 'retry-after': 'Sat, 05 Dec 2026 11:59:00 GMT' }, NOW)).toBe(0);
  });

  it('ignores values it cannot read', () => {
    expect(providerWaitMs(undefined, NOW)).toBeUndefined();
    expect(providerWaitMs({}, NOW)).toBeUndefined();
    expect(providerWaitMs({ 'retry-after': 'soon' }, NOW)).toBeUndefined();
    expect(providerWaitMs({ 'retry-after-ms': '-5' }, NOW)).toBeUndefined();
  });

  it("takes the reset of OpenAI's exhausted limit", () => {
    const headers = {
      'x-ratelimit-remaining-requests': '499',
      'x-ratelimit-reset-requests': '120ms',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '6m0s',
    };
    expect(providerWaitMs(headers, NOW)).toBe(360_000);
    // Without a remaining count, the latest reset.
    expect(
      providerWaitMs({ 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '2.5s' }, NOW),
    ).toBe(2500);
  });

  it("takes the reset of Anthropic's exhausted limit (RFC 3339 times)", () => {
    const headers = {
      'anthropic-ratelimit-requests-remaining': '10',
      'anthropic-ratelimit-requests-reset': '2026-12-05T12:00:01Z',
      'anthropic-ratelimit-input-tokens-remaining': '0',
      'anthropic-ratelimit-input-tokens-reset': '2026-12-05T12:00:12Z',
    };
    expect(providerWaitMs(headers, NOW)).toBe(12_000);
  });
});

describe('parseDurationMs', () => {
  it.each([
    ['1s', 1000],
    ['20ms', 20],
    ['6m0s', 360_000],
    ['1m30.5s', 90_500],
    ['2h0m0s', 7_200_000],
  ])('%s is %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it.each(['', 's', '5', '1x', '1s junk'])('refuses %j', (text) =>
    expect(parseDurationMs(text)).toBeUndefined(),
  );
});
