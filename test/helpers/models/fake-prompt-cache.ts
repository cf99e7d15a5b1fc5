import type { RecordedBody } from './fake-model-server.js';

/** How much of a request's input a fake provider reports as read from or written to its prompt cache. */
export interface CachedInput {
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** Tokens of a serialized prompt part, as the fakes count them everywhere (`defaultUsage`): chars / 4. */
const tokensOf = (chars: number) => Math.ceil(chars / 4);

/** A block without its cache marker: moving a breakpoint does not change the bytes of the prefix. */
function unmarked(block: unknown): string {
  if (typeof block !== 'object' || block === null) return JSON.stringify(block);
  const { cache_control: _marker, ...rest } = block as Record<string, unknown>;
  return JSON.stringify(rest);
}

interface Block {
  text: string;
  marked: boolean;
}

/** An Anthropic request as its cache sees it: tools, then system blocks, then each message's content blocks. */
function anthropicBlocks(body: RecordedBody): Block[] {
  const blocks: Block[] = [];
  const push = (block: unknown, prefix = '') =>
    blocks.push({
      text: prefix + unmarked(block),
      marked:
        typeof block === 'object' && block !== null && 'cache_control' in block && !!block.cache_control,
    });
  for (const tool of (body.tools as unknown[] | undefined) ?? []) push(tool);
  const system = body.system;
  if (typeof system === 'string') push({ type: 'text', text: system });
  else for (const block of (system as unknown[] | undefined) ?? []) push(block);
  for (const message of (body.messages as { role: string; content: unknown }[] | undefined) ?? []) {
    const content =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of content as unknown[]) push(block, `${message.role}:`);
  }
  return blocks;
}

/**
 * Anthropic's prefix caching, as its documentation describes it: a `cache_control` breakpoint writes the
 * prefix up to it (tools → system → messages) to the cache; a later request reads the longest cached prefix
 * it repeats exactly, and only prefixes ending at a breakpoint are written. Without breakpoints nothing is
 * cached. Tokens are the fakes' chars / 4 of the serialized blocks.
 */
export function anthropicPromptCache(): (body: RecordedBody) => CachedInput {
  const cached = new Set<string>();
  return (body) => {
    const blocks = anthropicBlocks(body);
    const prefixes: string[] = [];
    let joined = '';
    for (const block of blocks) prefixes.push((joined += `${block.text}\n`));
    const lastMark = blocks.findLastIndex((block) => block.marked);
    if (lastMark < 0) return { cacheReadTokens: 0, cacheWriteTokens: 0 };
    let read = -1;
    for (let index = lastMark; index >= 0; index--) {
      if (cached.has(prefixes[index] ?? '')) {
        read = index;
        break;
      }
    }
    blocks.forEach((block, index) => {
      if (block.marked && index > read) cached.add(prefixes[index] ?? '');
    });
    const readChars = read >= 0 ? (prefixes[read]?.length ?? 0) : 0;
    const writeChars = (prefixes[lastMark]?.length ?? 0) - readChars;
    return { cacheReadTokens: tokensOf(readChars), cacheWriteTokens: tokensOf(Math.max(0, writeChars)) };
  };
}

/**
 * OpenAI's automatic prefix caching, routed by `prompt_cache_key`: a prompt of at least 1,024 tokens reads
 * what it shares, message by message (tools first), with an earlier prompt of the same key, in 128-token
 * steps. Without a key nothing is reported cached.
 */
export function openAiPromptCache(
  options: { automatic?: boolean; minTokens?: number; unit?: number } = {},
): (body: RecordedBody) => CachedInput {
  const { automatic = false, minTokens = 1024, unit = 128 } = options;
  const seen = new Map<string, string[][]>();
  return (body) => {
    // `automatic`: a server that caches every prompt's prefix, key or not (DeepSeek).
    const key =
      typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : automatic ? '' : undefined;
    if (key === undefined) return { cacheReadTokens: 0, cacheWriteTokens: 0 };
    const parts = [
      JSON.stringify(body.tools ?? []),
      ...((body.messages as unknown[] | undefined) ?? []).map((message) => JSON.stringify(message)),
    ];
    const total = tokensOf(parts.join('').length);
    const earlier = seen.get(key) ?? [];
    let best = 0;
    for (const previous of earlier) {
      let chars = 0;
      for (let index = 0; index < Math.min(previous.length, parts.length); index++) {
        if (previous[index] !== parts[index]) break;
        chars += parts[index]?.length ?? 0;
      }
      best = Math.max(best, chars);
    }
    earlier.push(parts);
    seen.set(key, earlier);
    if (total < minTokens) return { cacheReadTokens: 0, cacheWriteTokens: 0 };
    return { cacheReadTokens: Math.floor(tokensOf(best) / unit) * unit, cacheWriteTokens: 0 };
  };
}
