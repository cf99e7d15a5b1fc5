import type { RunEventOf } from '../../../src/core/records/run-event.ts';

const REASONS: Record<string, string> = {
  rate_limited: 'rate limited',
  overloaded: 'overloaded',
  server_error: 'server error',
  timeout: 'timed out',
  conflict: 'conflict',
  connection: 'connection failed',
  stream_cut: 'stream cut',
};

/**
 * What the console says of a `model_retry` or `model_fallback`, e.g.
 * "openai:gpt-4o failed (rate limited, HTTP 429): retry 1 of 4 in 2.0 s."
 */
export function modelNotice(event: RunEventOf<'model_retry'> | RunEventOf<'model_fallback'>): string {
  const { reason: code, status: httpStatus } = event.payload;
  const reason = REASONS[code] ?? (code || 'failed');
  const status = typeof httpStatus === 'number' ? `, HTTP ${httpStatus}` : '';
  if (event.type === 'model_fallback') {
    const to = event.payload.to || 'the next model';
    return `${event.payload.from || 'The model'} failed (${reason}${status}): ${to} takes over.`;
  }
  const seconds = ((Number(event.payload.wait_ms) || 0) / 1000).toFixed(1);
  const attempt = `retry ${event.payload.attempt} of ${event.payload.max_retries}`;
  return `${event.payload.model || 'The model'} failed (${reason}${status}): ${attempt} in ${seconds} s.`;
}

/** What the transcript says where earlier turns were summarised (`context_compacted`, or a stored summary). */
export function compactionNotice(summarised: number, tokens?: { before: number; after: number }): string {
  const figures = tokens ? `, ${tokens.before} → ${tokens.after} tokens` : '';
  return `Earlier turns summarised to fit the model's context window (${summarised} messages${figures}); the originals stay above.`;
}
