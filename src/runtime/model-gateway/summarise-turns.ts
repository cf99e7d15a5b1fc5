import { compactionThreshold, resolveModelWindow } from '../../core/model-calls/model-windows.js';
import type { ModelCallRequest, ModelCallResult } from '../../core/ports/agent-middleware.js';
import type { ResolvedModel } from '../../core/ports/model-provider.js';
import type { ModelCallUsage } from '../../core/runs/run-usage.js';
import type { ChatMessage } from '../../core/thread/chat-message.js';
import { clipText, transcriptEntries } from '../../core/thread/compaction-summary.js';
import { promptCounter } from './prompt-tokens.js';

export const SUMMARISER_PROMPT =
  'You summarise the earlier part of a conversation between a user and an AI agent, so the agent can go on ' +
  "without the original turns. Keep every fact the agent may still need: the user's goals and constraints, " +
  'decisions taken, names, paths, identifiers, numbers, what each tool call did and found, open questions and ' +
  'what remains to do. Leave out pleasantries and repetition. Write plain prose or short bullet points, in ' +
  "the conversation's language, addressed to the agent. Answer with the summary only.";

/** Chunks summarised one after the other at most; older ones beyond are left out with a marker. */
const MAX_CHUNKS = 6;
/** A single message part is clipped (head and tail) to this many characters in the summariser's transcript. */
const MAX_PART_CHARS = 6_000;

export interface SummaryOutcome {
  text: string;
  /** The model that wrote it. */
  model: string;
  /** Of every call it took; stored with the summary like a model turn's (docs/usage.md). */
  usage: ModelCallUsage;
}

/**
 * Summarises `messages` with `model` through `next` (the gate and the gateway: retries, provider limits,
 * usage and budgets apply as to any call). The messages go as one transcript; a transcript too long for the
 * summariser's window is summarised in chunks, each with the summary so far, and at most MAX_CHUNKS of
 * them: older ones beyond are dropped and the summary says so. A summary longer than `maxTokens` is clipped
 * (head and tail) with a marker (docs/model-calls.md#compaction).
 */
export async function summariseTurns(
  request: ModelCallRequest,
  next: (request: ModelCallRequest) => Promise<ModelCallResult>,
  model: ResolvedModel,
  messages: readonly ChatMessage[],
  maxTokens: number,
): Promise<SummaryOutcome> {
  const counter = promptCounter(model);
  const window = resolveModelWindow(model.limitKey.model, undefined, await model.declaredWindow?.());
  // Room for the transcript: the summariser's threshold, less its instructions and the summary carried over.
  const room = Math.max(
    256,
    compactionThreshold(window, 0.8) - (await counter.text(SUMMARISER_PROMPT)) - maxTokens - 64,
  );
  const entries = transcriptEntries(messages, MAX_PART_CHARS);
  const chunks: string[][] = [];
  let current: string[] = [];
  let used = 0;
  for (const entry of entries) {
    let text = entry;
    let tokens = await counter.text(text);
    if (tokens > room) {
      // One message alone over the room: its head and tail, in proportion.
      text = clipText(text, Math.max(200, Math.floor((text.length * room) / tokens / 1.1)));
      tokens = await counter.text(text);
    }
    if (used + tokens > room && current.length > 0) {
      chunks.push(current);
      current = [];
      used = 0;
    }
    current.push(text);
    used += tokens;
  }
  if (current.length > 0) chunks.push(current);
  const dropped = Math.max(0, chunks.length - MAX_CHUNKS);
  let summary =
    dropped > 0 ? `[The earliest ${dropped} parts of the conversation were left out of this summary.]` : '';
  const usage: ModelCallUsage = { input_tokens: 0, output_tokens: 0 };
  for (const chunk of chunks.slice(dropped)) {
    const content =
      (summary === '' ? '' : `Summary of what came before this part:\n${summary}\n\n`) +
      `Conversation to summarise:\n\n${chunk.join('\n\n')}`;
    const result = await next({
      ...request,
      model,
      system: SUMMARISER_PROMPT,
      messages: [{ role: 'user', content }],
      tools: [],
      silent: true,
    });
    summary = result.text.trim();
    usage.input_tokens += result.usage.input_tokens;
    usage.output_tokens += result.usage.output_tokens;
  }
  const tokens = await counter.text(summary);
  if (tokens > maxTokens) {
    summary = clipText(summary, Math.max(200, Math.floor((summary.length * maxTokens) / tokens / 1.1)));
  }
  return { text: summary, model: model.spec, usage };
}
