/**
 * How long a provider asked a client to wait, read from its response headers (docs/model-calls.md):
 * `retry-after-ms` (milliseconds), then `retry-after` (seconds, or an HTTP date), then the rate-limit reset
 * headers of the limit that ran out: OpenAI's `x-ratelimit-reset-{requests,tokens}` (durations such as
 * `1s`, `6m0s`, `20ms`) and Anthropic's `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset`
 * (RFC 3339 times). Undefined when the headers say nothing usable.
 */
export function providerWaitMs(
  headers: Readonly<Record<string, string | undefined>> | undefined,
  nowMs: number,
): number | undefined {
  if (!headers) return undefined;
  const lower = lowerCased(headers);
  const explicit = retryAfterMs(lower, nowMs);
  if (explicit !== undefined) return explicit;
  return rateLimitResetMs(lower, nowMs);
}

function lowerCased(headers: Readonly<Record<string, string | undefined>>): Map<string, string> {
  const map = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') map.set(name.toLowerCase(), value.trim());
  }
  return map;
}

function nonNegative(value: number): number | undefined {
  return Number.isFinite(value) ? Math.max(0, Math.round(value)) : undefined;
}

function retryAfterMs(headers: Map<string, string>, nowMs: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return nonNegative(Number(ms));
  const after = headers.get('retry-after');
  if (after === undefined || after === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return nonNegative(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : nonNegative(date - nowMs);
}

const OPENAI_DIMENSIONS = ['requests', 'tokens'];
const ANTHROPIC_DIMENSIONS = ['requests', 'tokens', 'input-tokens', 'output-tokens'];

/**
 * The reset of every limit whose `remaining` is 0 (the one that refused), the latest of them; when no header
 * says which ran out, the latest reset given.
 */
function rateLimitResetMs(headers: Map<string, string>, nowMs: number): number | undefined {
  const exhausted: number[] = [];
  const all: number[] = [];
  const consider = (reset: number | undefined, remaining: string | undefined) => {
    if (reset === undefined) return;
    all.push(reset);
    if (remaining !== undefined && Number(remaining) <= 0) exhausted.push(reset);
  };
  for (const dimension of OPENAI_DIMENSIONS) {
    const raw = headers.get(`x-ratelimit-reset-${dimension}`);
    consider(
      raw === undefined ? undefined : parseDurationMs(raw),
      headers.get(`x-ratelimit-remaining-${dimension}`),
    );
  }
  for (const dimension of ANTHROPIC_DIMENSIONS) {
    const raw = headers.get(`anthropic-ratelimit-${dimension}-reset`);
    const at = raw === undefined ? Number.NaN : Date.parse(raw);
    consider(
      Number.isNaN(at) ? undefined : Math.max(0, at - nowMs),
      headers.get(`anthropic-ratelimit-${dimension}-remaining`),
    );
  }
  const chosen = exhausted.length > 0 ? exhausted : all;
  return chosen.length > 0 ? Math.max(...chosen) : undefined;
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** A Go-style duration as OpenAI sends it (`1s`, `6m0s`, `1m30.5s`, `20ms`, `2h0m0s`); undefined otherwise. */
export function parseDurationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || !/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const match of trimmed.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) {
    total += Number(match[1]) * (UNIT_MS[match[2] ?? 's'] ?? 0);
  }
  return nonNegative(total);
}
