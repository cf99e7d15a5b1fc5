import type { TokenUsage } from '../api/types.ts';

/** `1.2 s`, `3 min 4 s`, `2 h 5 min`; from two ISO timestamps (the end defaults to `now`). */
export function formatDuration(
  startIso: string | null,
  endIso: string | null,
  now: number = Date.now(),
): string {
  if (startIso === null) return '—';
  const start = Date.parse(startIso);
  const end = endIso === null ? now : Date.parse(endIso);
  if (Number.isNaN(start) || Number.isNaN(end)) return '—';
  const ms = Math.max(0, end - start);
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The parts of a token count a provider reported more of, each only when non-zero. */
export type TokenDetail = Partial<
  Pick<TokenUsage, 'cache_read_tokens' | 'cache_write_tokens' | 'reasoning_tokens'>
>;

/** `800 cached, 120 reasoning` (cache reads and writes are part of the input, reasoning of the output), or ''. */
export function tokenDetailText(usage: TokenDetail | null | undefined): string {
  if (!usage) return '';
  const parts: string[] = [];
  if (usage.cache_read_tokens) parts.push(`${usage.cache_read_tokens.toLocaleString('en-US')} cached`);
  if (usage.cache_write_tokens)
    parts.push(`${usage.cache_write_tokens.toLocaleString('en-US')} written to cache`);
  if (usage.reasoning_tokens) parts.push(`${usage.reasoning_tokens.toLocaleString('en-US')} reasoning`);
  return parts.join(', ');
}

/** `1234 tokens (800 cached)`: a count with its detail, when there is one. */
export function tokensWithDetail(total: number, usage: TokenDetail | null | undefined): string {
  const detail = tokenDetailText(usage);
  return `${total} tokens${detail ? ` (${detail})` : ''}`;
}

export function formatUsage(usage: TokenUsage | null | undefined): string {
  if (!usage) return 'no usage yet';
  const calls = `${usage.model_calls} model call${usage.model_calls === 1 ? '' : 's'}`;
  const detail = tokenDetailText(usage);
  return `${usage.total_tokens} tokens (${usage.input_tokens} in / ${usage.output_tokens} out${detail ? `; ${detail}` : ''}), ${calls}`;
}

export function formatTime(iso: string | null): string {
  if (iso === null) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** `scripted:*` models play a scenario file: they are not LLMs, and the console says so wherever it shows one. */
export function isScriptedModel(model: string | null | undefined): boolean {
  return typeof model === 'string' && model.startsWith('scripted:');
}

export function modelLabel(model: string | null | undefined): string {
  if (!model) return 'server default model';
  if (model.includes('not an LLM')) return model;
  return isScriptedModel(model) ? `${model} (scripted — not an LLM)` : model;
}
