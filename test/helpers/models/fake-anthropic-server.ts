import {
  splitInto,
  startFakeModelServer,
  type FakeModelServer,
  type FakeResponses,
  type ProviderWire,
  type ReplyContext,
  wireArguments,
} from './fake-model-server.js';
import { anthropicPromptCache } from './fake-prompt-cache.js';
import { validateAnthropicToolPairing } from './validate-tool-pairing.js';

export type {
  FakeError,
  FakeFault,
  FakeModelResponse,
  FakeModelServer,
  FakeResponses,
  RecordedBody,
  RecordedRequest,
} from './fake-model-server.js';

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function contentOf(context: ReplyContext): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (context.response.text !== undefined && context.response.text !== '') {
    blocks.push({ type: 'text', text: context.response.text });
  }
  (context.response.toolCalls ?? []).forEach((call, index) => {
    blocks.push({
      type: 'tool_use',
      id: call.id ?? `toolu_fake_${context.sequence}_${index}`,
      name: call.name,
      input: call.args,
    });
  });
  return blocks;
}

function stopReason(context: ReplyContext, blocks: ContentBlock[]): string {
  if (context.response.truncated === true) return 'max_tokens';
  return blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

/** Anthropic's input usage: `input_tokens` is the uncached part, beside what the cache read and wrote. */
function inputUsage({ usage }: ReplyContext) {
  return {
    input_tokens: usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
  };
}

const event = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function json(context: ReplyContext): unknown {
  const blocks = contentOf(context);
  return {
    id: `msg_fake_${context.sequence}`,
    type: 'message',
    role: 'assistant',
    model: context.request.body.model,
    content: blocks,
    stop_reason: stopReason(context, blocks),
    stop_sequence: null,
    usage: { ...inputUsage(context), output_tokens: context.usage.outputTokens },
  };
}

function frames(context: ReplyContext): string[] {
  const { usage } = context;
  const blocks = contentOf(context);
  const out = [
    event('message_start', {
      message: {
        id: `msg_fake_${context.sequence}`,
        type: 'message',
        role: 'assistant',
        model: context.request.body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...inputUsage(context), output_tokens: 1 },
      },
    }),
    event('ping', {}),
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      out.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const piece of splitInto(block.text, 3)) {
        out.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
      }
    } else {
      out.push(
        event('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        }),
      );
      const last = index === blocks.length - 1;
      const args = wireArguments(block.input, context.response.truncated === true && last);
      for (const piece of splitInto(args, 3)) {
        out.push(
          event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }),
        );
      }
    }
    out.push(event('content_block_stop', { index }));
  });
  out.push(
    event('message_delta', {
      delta: { stop_reason: stopReason(context, blocks), stop_sequence: null },
      usage: { output_tokens: usage.outputTokens },
    }),
    event('message_stop', {}),
  );
  return out;
}

export const ANTHROPIC_WIRE: ProviderWire = {
  json,
  frames,
  errorBody: ({ message, type }) => ({
    type: 'error',
    error: { type: type ?? 'invalid_request_error', message },
  }),
  streamError: (type, message) => event('error', { error: { type, message } }),
};

/**
 * A fake Anthropic Messages server (`POST {baseURL}/messages`), JSON and SSE streaming, for `anthropic:`
 * specs with `anthropicBaseUrl`. Replies with `responses` in order (their errors and faults too, see
 * `FakeFault`); like the real API, it answers 400 to a prompt whose `tool_use` blocks lack their
 * `tool_result` in the next message. It caches prompt prefixes at the `cache_control` breakpoints it is
 * sent and reports cache reads and writes in usage as the real API does (`fake-prompt-cache.ts`).
 */
export function startFakeAnthropicServer(options: { responses: FakeResponses }): Promise<FakeModelServer> {
  return startFakeModelServer({
    endpoint: '/messages',
    responses: options.responses,
    wire: ANTHROPIC_WIRE,
    validate: validateAnthropicToolPairing,
    promptCache: anthropicPromptCache(),
  });
}
