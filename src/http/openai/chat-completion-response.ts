import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ERROR_CODES, toTroupeError, type ErrorCode } from '../../core/errors.js';
import type { Run } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import type {
  CompletionOutcome,
  CompletionService,
  CompletionStart,
} from '../../runtime/completions/completion-service.js';
import type { AppEnv } from '../app-env.js';
import { errorStatus } from '../error-status.js';
import type { Logger } from '../logger.js';
import { openAiError, type OpenAiErrorBody } from './openai-error.js';

export const DEFAULT_COMPLETION_HEARTBEAT_MS = 15_000;

export interface CompletionResponseOptions {
  c: Context<AppEnv>;
  actor: Actor;
  service: CompletionService;
  started: CompletionStart;
  /** `stream_options.include_usage`: a last chunk with `usage` and no choices. */
  includeUsage: boolean;
  /** Cancels the run when the client leaves before its answer is complete. */
  cancel: (runId: string) => Promise<void>;
  heartbeatMs: number | undefined;
  logger: Logger;
}

type Settled =
  | { finishReason: 'stop' | 'length'; note: string | undefined; run: Run }
  | { status: ContentfulStatusCode; body: OpenAiErrorBody };

function isErrorCode(value: string): value is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(value);
}

function usageOf(run: Run) {
  const input = run.usage?.input_tokens ?? 0;
  const output = run.usage?.output_tokens ?? 0;
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

/**
 * What a run's outcome means to a completion client: a finish reason (with a note when the agent waits for
 * a human decision, which only the console or the approvals API can give), or an error for a run that
 * failed, was cancelled or was interrupted for another reason than its step limit.
 */
function settle(outcome: CompletionOutcome, conversationId: string): Settled {
  const { run } = outcome;
  if (outcome.kind === 'waiting') {
    const note =
      `\n\n[The agent is waiting for a decision on its ${outcome.toolName} call (tool call ${outcome.toolCallId} of run ${run.id}). ` +
      `Approve or reject it in the Troupe console or with POST /api/agent/runs/${run.id}/approvals/${outcome.toolCallId}; ` +
      `the answer continues in conversation ${conversationId}.]`;
    return { finishReason: 'stop', note, run };
  }
  if (run.status === 'completed') return { finishReason: 'stop', note: undefined, run };
  if (run.status === 'interrupted' && run.error?.type === 'max_steps')
    return { finishReason: 'length', note: undefined, run };
  const code = run.error?.type ?? run.status;
  // The request itself was fine: a run that failed is a server-side failure (502 when a model provider or an
  // MCP server failed), whatever 4xx its code has when a client causes it directly.
  const mapped = isErrorCode(code) ? errorStatus(code) : 500;
  const status = mapped >= 500 ? mapped : 500;
  return { status, body: openAiError(status, code, run.error?.message ?? `The run ended ${run.status}`) };
}

function envelope(started: CompletionStart) {
  return {
    id: `chatcmpl-${started.run.id}`,
    created: Math.floor(Date.parse(started.run.created_at) / 1000),
    model: started.agent.slug,
  };
}

/** Troupe's extension fields on every completion object: where the answer lives, to continue it. */
function extensions(started: CompletionStart) {
  return { conversation_id: started.conversation.id, run_id: started.run.id };
}

/** Ties the request's lifetime to a controller; a client that leaves aborts following the run. */
function followRequest(c: Context<AppEnv>) {
  const controller = new AbortController();
  const requestSignal = c.req.raw.signal;
  const abort = (): void => controller.abort();
  requestSignal.addEventListener('abort', abort, { once: true });
  return {
    controller,
    release: () => {
      requestSignal.removeEventListener('abort', abort);
      controller.abort();
    },
  };
}

/** A `chat.completion` once the run has ended (or stopped to wait for a human). */
export async function respondWithCompletion(options: CompletionResponseOptions): Promise<Response> {
  const { c, actor, service, started } = options;
  const { controller, release } = followRequest(c);
  let text = '';
  let settled: Settled | undefined;
  try {
    const outcome = await service.follow(
      actor,
      started.run.id,
      controller.signal,
      (delta) => {
        text += delta;
        return Promise.resolve();
      },
      // A retried model call's failed attempt: its text is not part of the answer.
      (chars) => (text = text.slice(0, Math.max(0, text.length - chars))),
    );
    settled = settle(outcome, started.conversation.id);
  } catch (thrown) {
    // Nobody is left to answer; the run is cancelled below.
    if (controller.signal.aborted) return new Response(null, { status: 499 });
    throw thrown;
  } finally {
    release();
    if (settled === undefined) await options.cancel(started.run.id);
  }
  if ('body' in settled) {
    // The run already failed: re-sending the request would start another run, not retry this one.
    c.header('x-should-retry', 'false');
    return c.json(settled.body, settled.status);
  }
  return c.json({
    ...envelope(started),
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text + (settled.note ?? ''), refusal: null },
        finish_reason: settled.finishReason,
        logprobs: null,
      },
    ],
    usage: usageOf(settled.run),
    ...extensions(started),
  });
}

/** `chat.completion.chunk` frames as the run streams, then the finish reason, usage and `data: [DONE]`. */
export function streamCompletion(options: CompletionResponseOptions): Response {
  const { c, actor, service, started, logger } = options;
  const { controller, release } = followRequest(c);
  const base = { ...envelope(started), object: 'chat.completion.chunk' };
  const extra = { ...(options.includeUsage ? { usage: null } : {}), ...extensions(started) };
  c.header('X-Accel-Buffering', 'no');
  c.header('Cache-Control', 'no-cache');
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => controller.abort());
    const heartbeat = setInterval(
      () => void stream.write(': keep-alive\n\n'),
      options.heartbeatMs ?? DEFAULT_COMPLETION_HEARTBEAT_MS,
    );
    const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
      stream.writeSSE({
        data: JSON.stringify({
          ...base,
          choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
          ...extra,
        }),
      });
    let settled: Settled | undefined;
    try {
      await chunk({ role: 'assistant', content: '' }, null);
      const outcome = await service.follow(actor, started.run.id, controller.signal, (text) =>
        chunk({ content: text }, null),
      );
      settled = settle(outcome, started.conversation.id);
      if ('body' in settled) {
        // Mid-stream the status is sent already: OpenAI's convention is an `error` object in a data frame.
        await stream.writeSSE({ data: JSON.stringify(settled.body) });
      } else {
        if (settled.note !== undefined) await chunk({ content: settled.note }, null);
        await chunk({}, settled.finishReason);
        if (options.includeUsage) {
          await stream.writeSSE({
            data: JSON.stringify({ ...base, choices: [], ...extra, usage: usageOf(settled.run) }),
          });
        }
      }
      await stream.writeSSE({ data: '[DONE]' });
    } catch (thrown) {
      if (!controller.signal.aborted) {
        const error = toTroupeError(thrown);
        logger.warn('chat completion stream failed', {
          run_id: started.run.id,
          code: error.code,
          error: error.message,
        });
        const message = error.code === 'internal' ? 'The completion stream failed' : error.message;
        await stream.writeSSE({
          data: JSON.stringify(openAiError(errorStatus(error.code), error.code, message)),
        });
      }
    } finally {
      clearInterval(heartbeat);
      release();
      // A client that left (or a stream that broke) gets no answer: the run stops instead of running on.
      if (settled === undefined) await options.cancel(started.run.id);
    }
  });
}
