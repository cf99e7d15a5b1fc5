import { TroupeError } from '../../core/errors.js';
import type { ModelCallRequest, ModelCallResult } from '../../core/ports/agent-middleware.js';

/** What the model is told after an answer the output limit cut. */
export const CONTINUE_PROMPT =
  'Your previous answer was cut off by the output token limit. Continue it exactly where it stopped, ' +
  'without repeating anything and without any preamble.';

/** The finish reason of an answer the output limit stopped (OpenAI `length`, Anthropic `max_tokens`). */
const CUT = 'length';

/** Tool calls the output limit cut are answered "cut off", never run (docs/model-calls.md#long-answers). */
function markCutCalls(result: ModelCallResult): ModelCallResult {
  if (result.finishReason !== CUT || !result.toolCalls.some((call) => call.invalidInput !== undefined)) {
    return result;
  }
  return {
    ...result,
    toolCalls: result.toolCalls.map((call) =>
      call.invalidInput === undefined ? call : { ...call, cutOff: true },
    ),
  };
}

/**
 * A text answer the output limit stopped is continued, up to `maxContinuations` times: the model gets its
 * answer so far and is asked to go on; the pieces make one answer, streamed as they come. An answer still
 * cut after that fails the call with `output_truncated` (the run keeps what streamed as its partial
 * answer). A turn with tool calls is never continued: a call the limit cut is marked `cutOff`.
 */
export async function continueCutAnswer(
  call: ModelCallRequest,
  first: ModelCallResult,
  next: (request: ModelCallRequest) => Promise<ModelCallResult>,
  maxContinuations: number,
): Promise<ModelCallResult> {
  let latest = first;
  let text = first.text;
  const usage = { ...first.usage };
  let continued = 0;
  while (latest.finishReason === CUT && latest.toolCalls.length === 0) {
    if (continued >= maxContinuations) {
      throw new TroupeError(
        'output_truncated',
        `The answer of ${latest.model ?? call.model.spec} was cut off by its output token limit` +
          (continued > 0 ? ` after ${continued} ${continued === 1 ? 'continuation' : 'continuations'}` : '') +
          "; raise the agent's max_output_tokens or max_continuations, or ask for a shorter answer",
        { details: { continuations: continued, chars: text.length } },
      );
    }
    continued += 1;
    latest = await next({
      ...call,
      messages: [
        ...call.messages,
        { role: 'assistant', content: text },
        { role: 'user', content: CONTINUE_PROMPT },
      ],
    });
    text += latest.text;
    usage.input_tokens += latest.usage.input_tokens;
    usage.output_tokens += latest.usage.output_tokens;
  }
  if (continued === 0) return markCutCalls(first);
  return markCutCalls({ ...latest, text, usage });
}
