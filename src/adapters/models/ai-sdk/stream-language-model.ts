import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3FunctionTool,
  type LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { asSchema, InvalidToolInputError, zodSchema, type Schema } from 'ai';
import { ProviderCallError } from '../../../core/model-calls/provider-call-error.js';
import type {
  ModelStreamPart,
  ModelTool,
  ModelToolCall,
  ModelTurnRequest,
} from '../../../core/ports/model-stream.js';
import { toLanguageModelPrompt, toTokenUsage } from './ai-sdk-internals.js';
import { cacheKeyOptions, withAnthropicBreakpoints, type PromptCaching } from './prompt-cache-hints.js';
import { toModelMessage } from './to-model-message.js';

/*
 * One model turn, straight on the provider's LanguageModelV3 with the AI SDK's own prompt conversion
 * (`ai/internal`, what `streamText` calls), and without `streamText` itself: the loop runs tools itself, so
 * the multi-step machinery, the web-stream transforms around every part, telemetry and callbacks cost
 * ~1.8 ms per call for nothing (measured with the scripted model: 1.9 ms through `streamText`, 0.1 ms for the
 * model's own stream). What `streamText` does that matters here is kept: the same prompt conversion, the
 * same tool declarations, and tool-call inputs parsed and validated against the tool's schema, a call to a
 * tool the model was not offered or with input that fails its schema marked invalid
 * (docs/agent-loop.md#one-model-call).
 */

interface PreparedTool {
  declaration: LanguageModelV3FunctionTool;
  schema: Schema<unknown>;
}

// A tool definition never changes once built: its JSON Schema is computed once, not on every call.
const prepared = new WeakMap<ModelTool, Promise<PreparedTool>>();
const zodSchemas = new WeakMap<object, Schema<unknown>>();

/**
 * A tool's JSON Schema as the model is sent it (docs/model-calls.md#cost): without the `$schema`
 * dialect URL and without the safe-integer bounds zod puts on every integer, which tell a model nothing and
 * cost each tool 10–30 tokens on every call. Validation keeps using the full schema.
 */
function leanSchema(value: unknown, names = false): unknown {
  if (Array.isArray(value)) return value.map((entry) => leanSchema(entry));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    // Keys of `properties` are argument names, kept whatever they are called.
    if (!names && key === '$schema') continue;
    if (!names && key === 'maximum' && entry === Number.MAX_SAFE_INTEGER) continue;
    if (!names && key === 'minimum' && entry === Number.MIN_SAFE_INTEGER) continue;
    out[key] = leanSchema(
      entry,
      !names && (key === 'properties' || key === '$defs' || key === 'definitions'),
    );
  }
  return out;
}

function prepareTool(tool: ModelTool): Promise<PreparedTool> {
  let entry = prepared.get(tool);
  if (entry === undefined) {
    let schema = zodSchemas.get(tool.inputSchema);
    if (schema === undefined) {
      schema = asSchema(zodSchema(tool.inputSchema));
      zodSchemas.set(tool.inputSchema, schema);
    }
    const known = schema;
    entry = Promise.resolve(known.jsonSchema).then((inputSchema) => ({
      declaration: {
        type: 'function',
        name: tool.name,
        description: tool.description,
        inputSchema: leanSchema(inputSchema) as typeof inputSchema,
      },
      schema: known,
    }));
    prepared.set(tool, entry);
  }
  return entry;
}

/** A tool call's input as `streamText` gives it: parsed, validated, or the raw text with why it is invalid. */
async function parseToolCall(
  call: Extract<LanguageModelV3StreamPart, { type: 'tool-call' }>,
  tools: ReadonlyMap<string, PreparedTool>,
): Promise<ModelToolCall> {
  const base = { toolCallId: call.toolCallId, toolName: call.toolName };
  const tool = tools.get(call.toolName);
  let parsed: unknown;
  try {
    parsed = call.input.trim() === '' ? {} : JSON.parse(call.input);
  } catch (error) {
    if (!tool) return { ...base, input: call.input };
    return { ...base, input: call.input, invalidInput: invalidInput(call, error).message };
  }
  // A call to a tool the model was not offered is still a call: it goes through the tool middleware, whose
  // guards refuse it (docs/agent-loop.md#refusals-at-execution). Only a schema failure of an offered tool is
  // "invalid".
  if (!tool) return { ...base, input: parsed };
  const checked = tool.schema.validate
    ? await tool.schema.validate(parsed)
    : { success: true as const, value: parsed };
  if (!checked.success)
    return { ...base, input: parsed, invalidInput: invalidInput(call, checked.error).message };
  return { ...base, input: checked.value };
}

function invalidInput(call: { toolName: string; input: string }, cause: unknown): InvalidToolInputError {
  return new InvalidToolInputError({ toolName: call.toolName, toolInput: call.input, cause });
}

/** The SDK's failure with a provider's answer as core reads it (`classifyModelError`); anything else as it is. */
function providerCallError(error: unknown): unknown {
  if (!APICallError.isInstance(error)) return error;
  return new ProviderCallError(error.message, {
    statusCode: error.statusCode,
    responseHeaders: error.responseHeaders,
    data: error.data,
    isRetryable: error.isRetryable,
    cause: error,
  });
}

/** The SDK's stream part as Troupe's: one for one, so every part the provider sends is seen. */
async function toStreamPart(
  part: LanguageModelV3StreamPart,
  tools: ReadonlyMap<string, PreparedTool>,
): Promise<ModelStreamPart> {
  if (part.type === 'text-delta') return { type: 'text-delta', delta: part.delta };
  if (part.type === 'tool-call') return { type: 'tool-call', call: await parseToolCall(part, tools) };
  if (part.type === 'finish')
    return { type: 'finish', usage: toTokenUsage(part.usage), finishReason: part.finishReason.unified };
  if (part.type === 'error') return { type: 'error', error: providerCallError(part.error) };
  return { type: 'other' };
}

/** One model turn on an AI SDK LanguageModelV3, as Troupe's stream parts (`ResolvedModel.stream`). */
export async function* streamLanguageModel(
  model: LanguageModelV3,
  request: ModelTurnRequest,
  caching: PromptCaching = 'none',
): AsyncGenerator<ModelStreamPart> {
  try {
    yield* streamTurn(model, request, caching);
  } catch (error) {
    throw providerCallError(error);
  }
}

async function* streamTurn(
  model: LanguageModelV3,
  request: ModelTurnRequest,
  caching: PromptCaching,
): AsyncGenerator<ModelStreamPart> {
  const { abortSignal, cacheKey } = request;
  const declared = await Promise.all(request.tools.map((tool) => prepareTool(tool)));
  const tools = new Map(declared.map((tool) => [tool.declaration.name, tool]));
  let prompt = await toLanguageModelPrompt(
    model,
    request.system,
    request.messages.map(toModelMessage),
    abortSignal,
  );
  let declarations = declared.map((tool) => tool.declaration);
  // Cache hints only with a key (caching on for the agent): docs/model-calls.md#prompt-caching.
  if (cacheKey !== undefined && caching === 'anthropic')
    ({ prompt, tools: declarations } = withAnthropicBreakpoints(prompt, declarations));
  const providerOptions = cacheKeyOptions(caching, cacheKey);
  const { stream } = await model.doStream({
    prompt,
    ...(declarations.length > 0 ? { tools: declarations, toolChoice: { type: 'auto' as const } } : {}),
    ...(providerOptions ? { providerOptions } : {}),
    ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
    abortSignal,
  });
  for await (const part of partsUntilAbort(stream, abortSignal)) yield await toStreamPart(part, tools);
}

/**
 * The stream's parts, ending with the abort signal's reason the moment it aborts: a provider's stream does
 * not always end when the request is aborted after its body broke off (seen with a connection cut under
 * Anthropic's teed stream), and an abandoned attempt must not hang its run.
 */
async function* partsUntilAbort(
  stream: ReadableStream<LanguageModelV3StreamPart>,
  signal: AbortSignal,
): AsyncGenerator<LanguageModelV3StreamPart> {
  const reader = stream.getReader();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason passes through unchanged
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    reader.cancel().catch(() => undefined);
  }
}
