import { NO_SPECIAL, o200kEncoding } from '../../src/runtime/model-gateway/prompt-tokens.js';
import type { RecordedBody } from '../../test/helpers/models/fake-model-server.js';

/** The input tokens of one model request, by part: what the cost suite counts on each side alike. */
export interface RequestTokens {
  system: number;
  messages: number;
  tools: number;
  total: number;
}

type Part = Record<string, unknown>;
const isPart = (value: unknown): value is Part => typeof value === 'object' && value !== null;

/** The text a content value carries: a string, or its parts' text, tool calls and tool results as JSON. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .map((part: unknown) => {
      if (!isPart(part)) return '';
      if (typeof part.text === 'string') return part.text;
      if (part.type === 'tool_use') return `${String(part.name)}${JSON.stringify(part.input ?? {})}`;
      if (part.type === 'tool_result') return contentText(part.content);
      return JSON.stringify(part);
    })
    .join('\n');
}

/** One OpenAI or Anthropic message as text: its content, its tool calls (name and arguments). */
function messageText(message: Part): string {
  let text = contentText(message.content);
  for (const call of (message.tool_calls as Part[] | undefined) ?? []) {
    const fn = (call.function ?? {}) as Part;
    text += `${String(fn.name)}${String(fn.arguments)}`;
  }
  return text;
}

/**
 * Counts a request body as both sides send it (OpenAI Chat Completions or Anthropic Messages) with one
 * tokenizer, o200k (`gpt-tokenizer`): the system prompt, each message's text and tool calls, and the tool
 * schemas as the JSON on the wire. Wire punctuation around messages is left out on both sides alike.
 */
export async function countRequestTokens(body: RecordedBody): Promise<RequestTokens> {
  const { countTokens } = await o200kEncoding();
  const count = (text: string) => (text === '' ? 0 : countTokens(text, NO_SPECIAL));
  const messages = ((body.messages as Part[] | undefined) ?? []).filter(isPart);
  let system = count(contentText(body.system ?? ''));
  let rest = 0;
  for (const message of messages) {
    const tokens = count(messageText(message));
    if (message.role === 'system' || message.role === 'developer') system += tokens;
    else rest += tokens;
  }
  const tools = Array.isArray(body.tools) && body.tools.length > 0 ? count(JSON.stringify(body.tools)) : 0;
  return { system, messages: rest, tools, total: system + rest + tools };
}

/** The sum of several requests' counts. */
export async function sumRequestTokens(bodies: readonly RecordedBody[]): Promise<RequestTokens> {
  const sum: RequestTokens = { system: 0, messages: 0, tools: 0, total: 0 };
  for (const body of bodies) {
    const tokens = await countRequestTokens(body);
    sum.system += tokens.system;
    sum.messages += tokens.messages;
    sum.tools += tokens.tools;
    sum.total += tokens.total;
  }
  return sum;
}
