import { afterEach, describe, expect, it, vi } from 'vitest';
import { repeatLimitedError, type Logger } from './logger.js';

function recordingLogger() {
  const lines: { message: string; context: Record<string, unknown> | undefined }[] = [];
  const logger: Logger = {
    error: (message, context) => lines.push({ message, context }),
    warn: () => undefined,
  };
  return { logger, lines };
}

describe('repeatLimitedError', () => {
  afterEach(() => vi.useRealTimers());

  it('logs a text once per window and says how often it repeated meanwhile', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const { logger, lines } = recordingLogger();
    const log = repeatLimitedError(logger, 'Redis event bus error', 10_000);
    log({ error: 'connect ECONNREFUSED' });
    for (let index = 0; index < 5; index += 1) log({ error: 'connect ECONNREFUSED' });
    // Another text is its own: logged at once.
    log({ error: 'Connection is closed.' });
    expect(lines).toEqual([
      { message: 'Redis event bus error', context: { error: 'connect ECONNREFUSED' } },
      { message: 'Redis event bus error', context: { error: 'Connection is closed.' } },
    ]);
    vi.advanceTimersByTime(10_000);
    log({ error: 'connect ECONNREFUSED' });
    expect(lines.at(-1)).toEqual({
      message: 'Redis event bus error',
      context: { error: 'connect ECONNREFUSED', repeated: 5 },
    });
    vi.advanceTimersByTime(10_000);
    log({ error: 'connect ECONNREFUSED' });
    // Nothing was skipped since the last line: no count.
    expect(lines.at(-1)?.context).toEqual({ error: 'connect ECONNREFUSED' });
  });
});
