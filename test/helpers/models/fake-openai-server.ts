import {
  splitInto,
  startFakeModelServer,
  type FakeModelServer,
  type FakeResponses,
  type ProviderWire,
  type ReplyContext,
  wireArguments,
} from './fake-model-server.js';
import { openAiPromptCache } from './fake-prompt-cache.js';
import { validateOpenAiToolPairing } from './validate-tool-pairing.js';

export type {
  FakeError,
  FakeFault,
  FakeModelResponse,
  FakeModelServer,
  FakeResponses,
  RecordedBody,
  RecordedRequest,
} from './fake-model-server.js';

function toolCallsOf(context: ReplyContext) {
  const calls = context.response.toolCalls ?? [];
  return calls.map((call, index) => ({
    id: call.id ?? `call_${context.sequence}_${index}`,
    name: call.name,
    arguments: wireArguments(call.args, context.response.truncated === true && index === calls.length - 1),
  }));
}

/** OpenAI's usage: cached tokens are part of `prompt_tokens`, reported in its details. */
function usageOf({ usage }: ReplyContext) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
  };
}

/** DeepSeek's usage: the cache's hits and misses beside `prompt_tokens`, which counts both. */
function deepSeekUsageOf({ usage }: ReplyContext) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_cache_hit_tokens: usage.cacheReadTokens,
    prompt_cache_miss_tokens: usage.inputTokens - usage.cacheReadTokens,
  };
}

type UsageOf = (context: ReplyContext) => unknown;

function finishReason(context: ReplyContext, toolCalls: unknown[]): string {
  if (context.response.truncated === true) return 'length';
  return toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function json(context: ReplyContext, usage: UsageOf = usageOf): unknown {
  const { response, request, sequence } = context;
  const toolCalls = toolCallsOf(context);
  return {
    id: `chatcmpl-fake-${sequence}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.body.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: response.text ?? null,
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReason(context, toolCalls),
      },
    ],
    usage: usage(context),
  };
}

function frames(context: ReplyContext, usage: UsageOf = usageOf): string[] {
  const { response, request, sequence } = context;
  const toolCalls = toolCallsOf(context);
  const base = {
    id: `chatcmpl-fake-${sequence}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: request.body.model,
    system_fingerprint: null,
  };
  const out: string[] = [];
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    out.push(
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] })}\n\n`,
    );
  chunk({ role: 'assistant', content: '' });
  for (const piece of splitInto(response.text ?? '', 3)) chunk({ content: piece });
  toolCalls.forEach((call, index) => {
    chunk({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
    for (const piece of splitInto(call.arguments, 3)) {
      chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  chunk({}, finishReason(context, toolCalls));
  // Like the real API, usage comes as a final choice-less chunk only when the client asks for it.
  if (request.body.stream_options?.include_usage === true) {
    out.push(
      `data: ${JSON.stringify({
        ...base,
        choices: [],
        usage: usage(context),
      })}\n\n`,
    );
  }
  out.push('data: [DONE]\n\n');
  return out;
}

export const OPENAI_WIRE: ProviderWire = {
  json,
  frames,
  errorBody: ({ message, type, code }) => ({
    error: { message, type: type ?? 'invalid_request_error', param: null, code: code ?? null },
  }),
  streamError: (type, message) =>
    `data: ${JSON.stringify({ error: { message, type, param: null, code: null } })}\n\n`,
};

/**
 * A fake OpenAI Chat Completions server (`POST {baseURL}/chat/completions`), JSON and SSE streaming, for
 * `openai:` (with `openaiBaseUrl`) and `openai-compatible:` specs. Replies with `responses` in order (their
 * errors and faults too, see `FakeFault`); like the real API, it answers 400 to a prompt whose assistant
 * `tool_calls` are not all answered by the `tool` messages right after them.
 */
/** DeepSeek's wire: OpenAI's, with its own usage fields for cache hits. */
const DEEPSEEK_WIRE: ProviderWire = {
  ...OPENAI_WIRE,
  json: (context) => json(context, deepSeekUsageOf),
  frames: (context) => frames(context, deepSeekUsageOf),
};

/**
 * `dialect: 'deepseek'` plays DeepSeek's API instead: it caches every prompt's prefix without a key (in
 * 64-token units) and reports hits as `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`.
 */
export function startFakeOpenAiServer(options: {
  responses: FakeResponses;
  dialect?: 'openai' | 'deepseek';
}): Promise<FakeModelServer> {
  const deepseek = options.dialect === 'deepseek';
  return startFakeModelServer({
    endpoint: '/chat/completions',
    responses: options.responses,
    wire: deepseek ? DEEPSEEK_WIRE : OPENAI_WIRE,
    validate: validateOpenAiToolPairing,
    promptCache: deepseek
      ? openAiPromptCache({ automatic: true, minTokens: 64, unit: 64 })
      : openAiPromptCache(),
  });
}
