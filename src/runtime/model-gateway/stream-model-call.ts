import { TroupeError, isTroupeError } from '../../core/errors.js';
import type { ModelStreamPart, ModelToolCall } from '../../core/ports/model-stream.js';
import type { ModelCallRequest, ModelCallResult } from '../../core/ports/agent-middleware.js';

/** What one attempt tells its caller while it streams. */
export interface StreamObserver {
  onTextDelta(text: string): void;
  /** Every part the provider streams (its type): the gateway's idle clock, and whether a tool call came. */
  onPart?(type: ModelStreamPart['type']): void;
}

/**
 * One attempt of a model turn (the gateway retries around it), on the resolved model's stream
 * (docs/agent-loop.md#one-model-call): the loop runs the tools itself, through the tool middleware chain.
 */
export async function streamModelCall(
  request: ModelCallRequest,
  observer: StreamObserver,
): Promise<ModelCallResult> {
  const { model, abortSignal } = request;
  try {
    let text = '';
    const toolCalls = new Map<string, ModelToolCall>();
    let finish: Extract<ModelStreamPart, { type: 'finish' }> | undefined;
    let streamError: unknown;
    const parts = model.stream({
      system: request.system,
      messages: request.messages,
      tools: request.tools,
      abortSignal,
      // One prompt cache per thread: its prefix grows step by step (docs/model-calls.md#prompt-caching).
      ...(request.agent.config.prompt_cache === false ? {} : { cacheKey: request.run.thread_id }),
      ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
    });
    for await (const part of parts) {
      observer.onPart?.(part.type);
      // Only these parts matter to the loop; the rest (reasoning, tool-input deltas, metadata…) are ignored.
      if (part.type === 'text-delta') {
        text += part.delta;
        observer.onTextDelta(part.delta);
      } else if (part.type === 'tool-call') {
        toolCalls.set(part.call.toolCallId, part.call);
      } else if (part.type === 'finish') {
        finish = part;
      } else if (part.type === 'error') {
        streamError ??= part.error;
      }
    }
    abortSignal.throwIfAborted();
    if (streamError !== undefined) throw modelCallError(model.spec, streamError);
    return {
      text,
      toolCalls: [...toolCalls.values()],
      usage: finish?.usage ?? { input_tokens: 0, output_tokens: 0 },
      finishReason: finish?.finishReason ?? 'other',
    };
  } catch (error) {
    abortSignal.throwIfAborted();
    throw modelCallError(model.spec, error);
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
