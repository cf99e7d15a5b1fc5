import { isTroupeError } from '../../core/errors.js';
import {
  compactionThreshold,
  overflowInMessage,
  resolveModelWindow,
  type ModelWindow,
} from '../../core/model-calls/model-windows.js';
import type {
  AgentMiddleware,
  ModelCallRequest,
  ModelCallResult,
} from '../../core/ports/agent-middleware.js';
import type { ModelProvider, ResolvedModel } from '../../core/ports/model-provider.js';
import type { Agent } from '../../core/records/agent.js';
import type { ChatMessage } from '../../core/thread/chat-message.js';
import { compactionCut, compactionMarkerOf, summaryMessage } from '../../core/thread/compaction-summary.js';
import type { ModelCallSettings } from '../../model-call-settings.js';
import type { RunEmitter } from '../events/run-emitter.js';
import { continueCutAnswer } from './continue-cut-answer.js';
import { messageChars, promptCounter, tokenCeiling, toolsChars } from './prompt-tokens.js';
import { summariseTurns } from './summarise-turns.js';

export interface ContextWindowDeps {
  agent: Agent;
  emitter: Pick<RunEmitter, 'commit'>;
  /** Resolves `config.compaction_model`. */
  models: ModelProvider;
  settings: Pick<ModelCallSettings, 'compactAt' | 'maxContinuations'>;
}

/** Share of the room beside the system prompt and tools that the kept recent messages may take. */
const KEEP_SHARE = 0.5;
/** Share of that room the summary may take. */
const SUMMARY_SHARE = 0.25;
/**
 * The messages' room is at least this share of the threshold, even when the system prompt and tools take
 * more: the model still gets some conversation, and the provider's refusal is the last word.
 */
const MIN_ROOM = 0.25;

interface LastCall {
  /** What the provider counted for the prompt. */
  tokens: number;
  /** The prompt's first message and length: later prompts that extend it add only their new messages. */
  first: ChatMessage | undefined;
  length: number;
  system: string;
  tools: number;
}

/**
 * Keeps a run's prompts inside its model's window (docs/model-calls.md#compaction), one layer per attempt,
 * just above the run gate so that every call it makes is admitted, charged and counted like any other:
 * - before a call whose prompt passes the threshold, the oldest messages are summarised into one summary
 *   message, checkpointed into the thread with a `context_compacted` event; the call and the ones after it
 *   read the summary and the messages after what it covers;
 * - a call the provider refuses as too long (`context_overflow`) is compacted against the window the
 *   provider stated and made again, once;
 * - a text answer the output limit cut is continued, a tool call it cut answered as such
 *   (`continueCutAnswer`).
 * The prompt is counted from the provider's input tokens of the previous call plus the messages added
 * since (each counted once), and not at all while a character bound shows it far below the threshold.
 */
export function createContextWindowMiddleware(deps: ContextWindowDeps): AgentMiddleware {
  const { agent, settings } = deps;
  const compactAt = agent.config.compact_at ?? settings.compactAt;
  const maxContinuations = agent.config.max_continuations ?? settings.maxContinuations;
  let window: (ModelWindow & { declaredOutput: number | undefined }) | undefined;
  /** A smaller window a provider's overflow showed, in this layer's count. */
  let observed: number | undefined;
  let summary: ChatMessage | undefined;
  /** Messages of the loop's list (always the same list, only growing) that `summary` stands for. */
  let covered = 0;
  let last: LastCall | undefined;

  async function windowOf(model: ResolvedModel) {
    if (window) return window;
    const declared = await model.declaredWindow?.();
    const resolved = resolveModelWindow(model.limitKey.model, agent.config, declared);
    window = {
      ...resolved,
      declaredOutput: agent.config.max_output_tokens ?? declared?.max_output_tokens,
    };
    return window;
  }

  const view = (messages: readonly ChatMessage[]): ChatMessage[] =>
    summary ? [summary, ...messages.slice(covered)] : [...messages];

  function thresholdOf(resolved: ModelWindow): { threshold: number; contextWindow: number } {
    const contextWindow = Math.min(resolved.contextWindow, observed ?? Number.POSITIVE_INFINITY);
    return {
      threshold: compactionThreshold({ contextWindow, maxOutputTokens: resolved.maxOutputTokens }, compactAt),
      contextWindow,
    };
  }

  async function estimate(request: ModelCallRequest, prompt: ChatMessage[], threshold: number) {
    const counter = promptCounter(request.model);
    if (
      last &&
      last.first === prompt[0] &&
      last.length <= prompt.length &&
      last.system === request.system &&
      last.tools === request.tools.length
    ) {
      let total = last.tokens;
      for (const message of prompt.slice(last.length)) total += await counter.message(message);
      return total;
    }
    if (request.model.provider !== 'scripted') {
      let chars = request.system.length + toolsChars(request.tools);
      for (const message of prompt) chars += messageChars(message);
      const ceiling = tokenCeiling(chars, counter.factor);
      if (ceiling <= threshold) return ceiling;
    }
    return counter.prompt(request.system, request.tools, prompt);
  }

  /** The system prompt's and the tools' tokens: what no compaction can shrink. */
  async function fixedTokens(request: ModelCallRequest): Promise<number> {
    const counter = promptCounter(request.model);
    return (await counter.text(request.system)) + (await counter.tools(request.tools));
  }

  /** Tokens the messages may take: what the threshold leaves beside the fixed part, at least a quarter of it. */
  const roomFor = (threshold: number, fixed: number) =>
    Math.max(threshold - fixed, Math.floor(threshold * MIN_ROOM));

  /** Summarises the oldest messages; the prompt's tokens after it, or undefined when nothing can be cut. */
  async function compact(
    request: ModelCallRequest,
    next: (request: ModelCallRequest) => Promise<ModelCallResult>,
    before: number,
    trigger: 'threshold' | 'overflow',
  ): Promise<number | undefined> {
    const prompt = view(request.messages);
    const counter = promptCounter(request.model);
    const { threshold, contextWindow } = thresholdOf(await windowOf(request.model));
    const fixed = await fixedTokens(request);
    const room = roomFor(threshold, fixed);
    const counts = new Map<ChatMessage, number>();
    for (const message of prompt) counts.set(message, await counter.message(message));
    const first = prompt[0];
    const minSummarised = first !== undefined && compactionMarkerOf(first) ? 2 : 1;
    const cut = compactionCut(
      prompt,
      (message) => counts.get(message) ?? 0,
      Math.floor(room * KEEP_SHARE),
      minSummarised,
    );
    if (cut === undefined) return undefined;
    const model = agent.config.compaction_model
      ? deps.models.resolve(agent.config.compaction_model)
      : request.model;
    const outcome = await summariseTurns(
      request,
      next,
      model,
      prompt.slice(0, cut),
      Math.max(256, Math.floor(room * SUMMARY_SHARE)),
    );
    const kept = prompt.length - cut;
    const message = summaryMessage(outcome.text, { kept, summarised: cut });
    let after = fixed + (await counter.message(message));
    for (const keptMessage of prompt.slice(cut)) after += counts.get(keptMessage) ?? 0;
    const payload = {
      step: request.step,
      trigger,
      tokens_before: before,
      tokens_after: after,
      messages_summarised: cut,
      model: outcome.model,
      context_window: contextWindow,
    };
    await deps.emitter.commit([{ type: 'context_compacted', payload }], undefined, {
      step: request.step,
      messages: [message],
      usage: outcome.usage,
    });
    request.observe?.({ type: 'context_compacted', ...payload });
    summary = message;
    covered = request.messages.length - kept;
    last = undefined;
    return after;
  }

  return {
    name: 'context-window',
    async wrapModelCall(request, next) {
      const resolved = await windowOf(request.model);
      let prompt = view(request.messages);
      let tokens = await estimate(request, prompt, thresholdOf(resolved).threshold);
      const { threshold } = thresholdOf(resolved);
      if (tokens > threshold) {
        // Only the messages can shrink: compact when they pass their room, not for a fixed part that is
        // over the threshold on its own (that would compact at every call).
        const fixed = await fixedTokens(request);
        if (tokens - fixed > roomFor(threshold, fixed) * (KEEP_SHARE + SUMMARY_SHARE)) {
          tokens = (await compact(request, next, tokens, 'threshold')) ?? tokens;
          prompt = view(request.messages);
        }
      }
      const limit = resolved.declaredOutput;
      const call = (messages: ChatMessage[]): ModelCallRequest => ({
        ...request,
        messages,
        ...(limit !== undefined ? { maxOutputTokens: Math.min(limit, resolved.maxOutputTokens) } : {}),
      });
      let result: ModelCallResult;
      try {
        result = await next(call(prompt));
      } catch (error) {
        if (!isTroupeError(error, 'context_overflow')) throw error;
        tokens = await promptCounter(request.model).prompt(request.system, request.tools, prompt);
        // The provider's window is smaller than this layer thought: aim below what it stated, in this
        // layer's count (scaled by how the provider counted this prompt, when it said).
        const stated = overflowInMessage(error.message);
        const scaled = stated
          ? Math.floor(stated.window * (stated.prompt ? Math.min(1, tokens / stated.prompt) : 1))
          : Math.floor(tokens * 0.8);
        observed = Math.min(observed ?? Number.POSITIVE_INFINITY, scaled);
        if ((await compact(request, next, tokens, 'overflow')) === undefined) throw error;
        prompt = view(request.messages);
        result = await next(call(prompt));
      }
      if (result.usage.input_tokens > 0) {
        last = {
          tokens: result.usage.input_tokens,
          first: prompt[0],
          length: prompt.length,
          system: request.system,
          tools: request.tools.length,
        };
      }
      return continueCutAnswer(call(prompt), result, next, maxContinuations);
    },
  };
}
