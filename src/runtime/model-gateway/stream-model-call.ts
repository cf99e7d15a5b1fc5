import type { LanguageModelV3FunctionTool, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { asSchema, InvalidToolInputError, zodSchema, type Schema } from 'ai';
import { asLanguageModelUsage, convertToLanguageModelPrompt } from 'ai/internal';
import { TroupeError, isTroupeError } from '../../core/errors.js';
import type { ModelCallRequest, ModelCallResult, ModelToolCall } from '../middleware/agent-middleware.js';
import type { AnyTroupeTool } from '../tools/troupe-tool.js';

/*
 * One model turn, straight on the provider's LanguageModelV3 with the AI SDK's own prompt conversion
 * (`ai/internal`, what `streamText` calls), and without `streamText` itself: the loop runs tools itself, so
 * the multi-step machinery, the web-stream transforms around every part, telemetry and callbacks cost
 * ~1.8 ms per call for nothing (measured with the scripted model: 1.9 ms through `streamText`, 0.1 ms for the
 * model's own stream). What `streamText` does that matters here is kept: the same prompt conversion, the
 * same tool declarations, and tool-call inputs parsed and validated against the tool's schema, a call to a
 * tool the model was not offered or with input that fails its schema marked invalid.
 */

interface PreparedTool {
  declaration: LanguageModelV3FunctionTool;
  schema: Schema<unknown>;
}

// A tool definition never changes once built: its JSON Schema is computed once, not on every call.
const prepared = new WeakMap<AnyTroupeTool, Promise<PreparedTool>>();
const zodSchemas = new WeakMap<object, Schema<unknown>>();

function prepareTool(tool: AnyTroupeTool): Promise<PreparedTool> {
  let entry = prepared.get(tool);
  if (entry === undefined) {
    let schema = zodSchemas.get(tool.inputSchema);
    if (schema === undefined) {
      schema = asSchema(zodSchema(tool.inputSchema));
      zodSchemas.set(tool.inputSchema, schema);
    }
    const known = schema;
    entry = Promise.resolve(known.jsonSchema).then((inputSchema) => ({
      declaration: { type: 'function', name: tool.name, description: tool.description, inputSchema },
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
    return { ...base, input: call.input, invalidInput: describeError(invalidInput(call, error)) };
  }
  // A call to a tool the model was not offered is still a call: it goes through the tool middleware,
  // whose guards refuse it with SPEC §4's texts. Only a schema failure of an offered tool is "invalid".
  if (!tool) return { ...base, input: parsed };
  const checked = tool.schema.validate
    ? await tool.schema.validate(parsed)
    : { success: true as const, value: parsed };
  if (!checked.success)
    return { ...base, input: parsed, invalidInput: describeError(invalidInput(call, checked.error)) };
  return { ...base, input: checked.value };
}

function invalidInput(call: { toolName: string; input: string }, cause: unknown): InvalidToolInputError {
  return new InvalidToolInputError({ toolName: call.toolName, toolInput: call.input, cause });
}

/** What one attempt tells its caller while it streams. */
export interface StreamObserver {
  onTextDelta(text: string): void;
  /** Every part the provider streams (its type): the gateway's idle clock, and whether a tool call came. */
  onPart?(type: LanguageModelV3StreamPart['type']): void;
}

/**
 * One attempt of a model turn (the gateway retries around it); the loop runs the tools itself, through the
 * tool middleware chain.
 */
export async function streamModelCall(
  request: ModelCallRequest,
  observer: StreamObserver,
): Promise<ModelCallResult> {
  const { model, abortSignal } = request;
  try {
    const declared = await Promise.all(request.tools.map((tool) => prepareTool(tool)));
    const tools = new Map(declared.map((tool) => [tool.declaration.name, tool]));
    const prompt = await convertToLanguageModelPrompt({
      // `streamText` would first re-validate the whole thread with zod on every call (O(thread) per step);
      // the thread is written only by this runtime, in the SDK's ModelMessage shape, so it is passed as is.
      prompt: { system: request.system || undefined, messages: request.messages },
      supportedUrls: await model.model.supportedUrls,
      download: undefined,
      abortSignal,
    });
    const { stream } = await model.model.doStream({
      prompt,
      ...(declared.length > 0
        ? { tools: declared.map((tool) => tool.declaration), toolChoice: { type: 'auto' as const } }
        : {}),
      abortSignal,
    });
    let text = '';
    const toolCalls = new Map<string, ModelToolCall>();
    let finish: Extract<LanguageModelV3StreamPart, { type: 'finish' }> | undefined;
    let streamError: unknown;
    for await (const part of partsUntilAbort(stream, abortSignal)) {
      observer.onPart?.(part.type);
      // Only these parts matter to the loop; the rest (reasoning, tool-input deltas, metadata…) are ignored.
      if (part.type === 'text-delta') {
        text += part.delta;
        observer.onTextDelta(part.delta);
      } else if (part.type === 'tool-call') {
        toolCalls.set(part.toolCallId, await parseToolCall(part, tools));
      } else if (part.type === 'finish') {
        finish = part;
      } else if (part.type === 'error') {
        streamError ??= part.error;
      }
    }
    abortSignal.throwIfAborted();
    if (streamError !== undefined) throw modelCallError(model.spec, streamError);
    const usage = finish ? asLanguageModelUsage(finish.usage) : undefined;
    return {
      text,
      toolCalls: [...toolCalls.values()],
      usage: { input_tokens: usage?.inputTokens ?? 0, output_tokens: usage?.outputTokens ?? 0 },
      finishReason: finish?.finishReason.unified ?? 'other',
    };
  } catch (error) {
    abortSignal.throwIfAborted();
    throw modelCallError(model.spec, error);
  }
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

function modelCallError(spec: string, error: unknown): TroupeError {
  if (isTroupeError(error)) return error;
  return new TroupeError('model_call_failed', `Model ${spec} failed: ${describeError(error)}`, {
    cause: error,
  });
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
