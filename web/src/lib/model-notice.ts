import type { RunEvent } from '../api/types.ts';

const str = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';

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
export function modelNotice(event: RunEvent): string {
  const payload = event.payload;
  const reason = REASONS[str(payload.reason)] ?? (str(payload.reason) || 'failed');
  const status = typeof payload.status === 'number' ? `, HTTP ${payload.status}` : '';
  if (event.type === 'model_fallback') {
    const to = str(payload.to) || 'the next model';
    return `${str(payload.from) || 'The model'} failed (${reason}${status}): ${to} takes over.`;
  }
  const seconds = ((Number(payload.wait_ms) || 0) / 1000).toFixed(1);
  const attempt = `retry ${str(payload.attempt)} of ${str(payload.max_retries)}`;
  return `${str(payload.model) || 'The model'} failed (${reason}${status}): ${attempt} in ${seconds} s.`;
}
