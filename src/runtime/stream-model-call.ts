import { NoSuchToolError, streamText, tool, zodSchema, type Tool, type ToolSet } from 'ai';
import { TroupeError, isTroupeError } from '../core/errors.js';
import type { ModelCallRequest, ModelCallResult, ModelToolCall } from './middleware/agent-middleware.js';
import type { AnyTroupeTool } from './tools/troupe-tool.js';

// The AI SDK turns a zod input schema into JSON Schema when a call first reads it, and caches the result on
// its schema object only. Keeping one schema object per zod schema, and one SDK tool per Troupe tool, makes
// that conversion happen once per tool definition instead of once per tool on every model call.
const sdkSchemas = new WeakMap<object, ReturnType<typeof zodSchema>>();
const sdkTools = new WeakMap<AnyTroupeTool, Tool>();

function sdkTool(troupeTool: AnyTroupeTool): Tool {
  let cached = sdkTools.get(troupeTool);
  if (cached === undefined) {
    let schema = sdkSchemas.get(troupeTool.inputSchema);
    if (schema === undefined) {
      schema = zodSchema(troupeTool.inputSchema);
      sdkSchemas.set(troupeTool.inputSchema, schema);
    }
    cached = tool({ description: troupeTool.description, inputSchema: schema });
    sdkTools.set(troupeTool, cached);
  }
  return cached;
}

/**
 * The innermost model call: one step of the AI SDK (tools have no `execute`, so `streamText` stops after
 * the model's turn and the loop runs the tools itself, through the tool middleware chain).
 */
export async function streamModelCall(
  request: ModelCallRequest,
  onTextDelta: (text: string) => void,
): Promise<ModelCallResult> {
  const tools: ToolSet = {};
  for (const troupeTool of request.tools) tools[troupeTool.name] = sdkTool(troupeTool);
  let streamError: unknown;
  const result = streamText({
    model: request.model.model,
    system: request.system || undefined,
    messages: request.messages,
    tools,
    abortSignal: request.abortSignal,
    // Retries belong to the run (lease release), not hidden inside one call.
    maxRetries: 0,
    onError: ({ error }) => {
      streamError ??= error;
    },
  });

  let text = '';
  const toolCalls = new Map<string, ModelToolCall>();
  for await (const part of result.fullStream) {
    // Only three part types matter to the loop; the rest (step markers, tool-input deltas…) are ignored.
    if (part.type === 'text-delta') {
      text += part.text;
      onTextDelta(part.text);
    } else if (part.type === 'tool-call') {
      // A call to a tool the model was not offered is still a call: it goes through the tool middleware,
      // whose guards refuse it with SPEC §4's texts. Only a schema failure of an offered tool is "invalid".
      const invalid = part.invalid === true && !NoSuchToolError.isInstance(part.error);
      toolCalls.set(part.toolCallId, {
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
        ...(invalid ? { invalidInput: describeError(part.error) } : {}),
      });
    } else if (part.type === 'error') {
      streamError ??= part.error;
    }
  }
  request.abortSignal.throwIfAborted();
  if (streamError !== undefined) {
    if (isTroupeError(streamError)) throw streamError;
    throw new TroupeError('model_call_failed', `Model ${request.model.spec} failed: ${describeError(streamError)}`, {
      cause: streamError,
    });
  }
  const usage = await result.usage;
  return {
    text,
    toolCalls: [...toolCalls.values()],
    usage: { input_tokens: usage.inputTokens ?? 0, output_tokens: usage.outputTokens ?? 0 },
    finishReason: await result.finishReason,
  };
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
