import {
  sendJson,
  splitInto,
  startFakeModelServer,
  startSse,
  type FakeModelServer,
  type FakeResponses,
  type ReplyContext,
} from './fake-model-server.js';
import { validateOpenAiToolPairing } from './validate-tool-pairing.js';

export type {
  FakeModelResponse,
  FakeModelServer,
  FakeResponses,
  RecordedBody,
  RecordedRequest,
} from './fake-model-server.js';

function toolCallsOf(context: ReplyContext) {
  return (context.response.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${context.sequence}_${index}`,
    name: call.name,
    arguments: JSON.stringify(call.args),
  }));
}

function replyJson(context: ReplyContext): void {
  const { response, request, sequence, usage } = context;
  const toolCalls = toolCallsOf(context);
  sendJson(context.res, 200, {
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
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
    },
  });
}

function replyStream(context: ReplyContext): void {
  const { response, request, sequence, usage, res } = context;
  const toolCalls = toolCallsOf(context);
  const base = {
    id: `chatcmpl-fake-${sequence}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: request.body.model,
    system_fingerprint: null,
  };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    res.write(
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] })}\n\n`,
    );

  startSse(res);
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
  chunk({}, toolCalls.length > 0 ? 'tool_calls' : 'stop');
  // Like the real API, usage comes as a final choice-less chunk only when the client asks for it.
  if (request.body.stream_options?.include_usage === true) {
    res.write(
      `data: ${JSON.stringify({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: usage.inputTokens,
          completion_tokens: usage.outputTokens,
          total_tokens: usage.inputTokens + usage.outputTokens,
        },
      })}\n\n`,
    );
  }
  res.write('data: [DONE]\n\n');
  res.end();
}

/**
 * A fake OpenAI Chat Completions server (`POST {baseURL}/chat/completions`), JSON and SSE streaming, for
 * `openai:` (with `openaiBaseUrl`) and `openai-compatible:` specs. Replies with `responses` in order;
 * like the real API, it answers 400 to a prompt whose assistant `tool_calls` are not all answered by the
 * `tool` messages right after them.
 */
export function startFakeOpenAiServer(options: { responses: FakeResponses }): Promise<FakeModelServer> {
  return startFakeModelServer({
    endpoint: '/chat/completions',
    responses: options.responses,
    reply: (context) => (context.request.body.stream === true ? replyStream(context) : replyJson(context)),
    validate: validateOpenAiToolPairing,
    errorBody: (message) => ({ error: { message, type: 'invalid_request_error', param: null, code: null } }),
  });
}
