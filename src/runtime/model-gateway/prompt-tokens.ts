import { z } from 'zod';
import type * as O200kModule from 'gpt-tokenizer/encoding/o200k_base';
import type { ResolvedModel } from '../../core/ports/model-provider.js';
import type { ChatMessage } from '../../core/thread/chat-message.js';
import type { AnyTroupeTool } from '../../core/tools/troupe-tool.js';

/*
 * Prompt token counts for the context window (docs/model-calls.md#counting-tokens). OpenAI models are counted
 * with their own encoding (`gpt-tokenizer`, whose data ships in the package: nothing is downloaded); models
 * without a published tokenizer are counted with o200k and a safety factor: Anthropic's tokenizer gives
 * about 15–25 % more tokens than o200k on English and code, so 1.25; other servers (Llama, Qwen, DeepSeek…)
 * 1.15. The scripted provider counts `ceil(characters / 4)`, and so does this for it: the same figure its
 * usage reports. Each message and tool is counted once and remembered.
 */

type Encoder = (text: string) => number;

let o200k: Promise<Encoder> | undefined;
let cl100k: Promise<Encoder> | undefined;
/** Text that spells a special token (`<|endoftext|>`) is counted as text, never refused. */
export const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

type O200kEncoding = typeof O200kModule;
let o200kModule: Promise<O200kEncoding> | undefined;

/**
 * The o200k encoding, loaded on first use: its tables cost a process about 0.4 s and 70 MB, which one that
 * never counts (or not yet) should not pay at start-up.
 */
export function o200kEncoding(): Promise<O200kEncoding> {
  o200kModule ??= import('gpt-tokenizer/encoding/o200k_base');
  return o200kModule;
}

function loadO200k(): Promise<Encoder> {
  o200k ??= o200kEncoding().then((module) => (text: string) => module.countTokens(text, NO_SPECIAL));
  return o200k;
}

function loadCl100k(): Promise<Encoder> {
  cl100k ??= import('gpt-tokenizer/encoding/cl100k_base').then(
    (module) => (text: string) => module.countTokens(text, NO_SPECIAL),
  );
  return cl100k;
}

/** Tokens a message costs beyond its text (role, separators), as OpenAI's chat format counts them. */
const PER_MESSAGE = 4;

export interface PromptCounter {
  /** How a model's prompts are counted: the encoding, and the factor applied to its counts. */
  readonly factor: number;
  message(message: ChatMessage): Promise<number>;
  text(text: string): Promise<number>;
  tools(tools: readonly AnyTroupeTool[]): Promise<number>;
  /** System prompt, tools and messages. */
  prompt(system: string, tools: readonly AnyTroupeTool[], messages: readonly ChatMessage[]): Promise<number>;
}

const quarter: Encoder = (text) => Math.ceil(text.length / 4);

/** The encoding for a model and the factor on its counts. */
function encodingFor(model: Pick<ResolvedModel, 'provider' | 'limitKey'>): {
  load: () => Promise<Encoder>;
  factor: number;
  name: string;
} {
  if (model.provider === 'scripted')
    return { load: () => Promise.resolve(quarter), factor: 1, name: 'chars/4' };
  if (model.provider === 'anthropic') return { load: loadO200k, factor: 1.25, name: 'o200k×1.25' };
  if (model.provider === 'openai') {
    const id = model.limitKey.model.toLowerCase();
    // GPT-4 (not 4o/4.1) and GPT-3.5 use cl100k; every newer OpenAI model o200k.
    const old = /^(gpt-4(?![o.])|gpt-3\.5)/.test(id);
    return old
      ? { load: loadCl100k, factor: 1, name: 'cl100k' }
      : { load: loadO200k, factor: 1, name: 'o200k' };
  }
  return { load: loadO200k, factor: 1.15, name: 'o200k×1.15' };
}

// Counts by encoding, per message and per tool object: a thread's messages are counted once per attempt.
const messageCounts = new Map<string, WeakMap<object, number>>();
const toolCounts = new Map<string, WeakMap<object, number>>();

function memo(store: Map<string, WeakMap<object, number>>, name: string): WeakMap<object, number> {
  let map = store.get(name);
  if (!map) {
    map = new WeakMap();
    store.set(name, map);
  }
  return map;
}

function messageText(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  let text = '';
  for (const part of message.content) {
    if (part.type === 'text' || part.type === 'reasoning') text += part.text;
    else if (part.type === 'tool-call') text += part.toolName + JSON.stringify(part.input ?? {});
    else if (part.type === 'tool-result') {
      const output = part.output;
      text += part.toolName;
      if (output.type === 'execution-denied') text += output.reason ?? '';
      else text += typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
    } else {
      // Images and files: providers bill them by size or resolution; a flat figure keeps them visible.
      text += ' '.repeat(1000);
    }
  }
  return text;
}

function toolText(tool: AnyTroupeTool): string {
  let schema = '';
  try {
    schema = JSON.stringify(z.toJSONSchema(tool.inputSchema, { unrepresentable: 'any' }));
  } catch {
    schema = '';
  }
  return `${tool.name}${tool.description}${schema}`;
}

export function promptCounter(model: Pick<ResolvedModel, 'provider' | 'limitKey'>): PromptCounter {
  const encoding = encodingFor(model);
  const messages = memo(messageCounts, encoding.name);
  const tools = memo(toolCounts, encoding.name);
  const scale = (raw: number) => Math.ceil(raw * encoding.factor);
  const counter: PromptCounter = {
    factor: encoding.factor,
    async text(text) {
      return scale((await encoding.load())(text));
    },
    async message(message) {
      const known = messages.get(message);
      if (known !== undefined) return known;
      const count = scale((await encoding.load())(messageText(message))) + PER_MESSAGE;
      messages.set(message, count);
      return count;
    },
    async tools(list) {
      // The scripted provider's usage counts the messages and the system prompt only.
      if (model.provider === 'scripted') return 0;
      let total = 0;
      for (const tool of list) {
        let count = tools.get(tool);
        if (count === undefined) {
          count = scale((await encoding.load())(toolText(tool)));
          tools.set(tool, count);
        }
        total += count;
      }
      return total;
    },
    async prompt(system, list, prompt) {
      let total = (await counter.text(system)) + (await counter.tools(list));
      for (const message of prompt) total += await counter.message(message);
      return total;
    },
  };
  return counter;
}

/**
 * An upper bound of a prompt's tokens from its characters alone, without a tokenizer: no encoding here
 * makes more than one token of a UTF-8 byte, and a UTF-16 unit is at most three bytes. Lets a prompt that
 * is obviously far below its threshold skip the count.
 */
export function tokenCeiling(chars: number, factor: number): number {
  return Math.ceil(chars * 3 * factor);
}

const charCounts = new WeakMap<object, number>();

/** Characters of a message as the ceiling counts them, remembered per message. */
export function messageChars(message: ChatMessage): number {
  let chars = charCounts.get(message);
  if (chars === undefined) {
    chars = messageText(message).length + PER_MESSAGE;
    charCounts.set(message, chars);
  }
  return chars;
}

const toolChars = new WeakMap<object, number>();

export function toolsChars(list: readonly AnyTroupeTool[]): number {
  let total = 0;
  for (const tool of list) {
    let chars = toolChars.get(tool);
    if (chars === undefined) {
      chars = toolText(tool).length;
      toolChars.set(tool, chars);
    }
    total += chars;
  }
  return total;
}
