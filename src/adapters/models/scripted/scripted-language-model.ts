import { randomUUID } from 'node:crypto';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { delay } from '../../../core/delay.js';
import { planScriptedTurn, type ScriptedTurn } from './plan-scripted-turn.js';
import type { ScenarioStore } from './scenario-store.js';

/** Splits by code points so a chunk never ends in half a surrogate pair. */
function chunkText(text: string, size: number): string[] {
  const codePoints = Array.from(text);
  const chunks: string[] = [];
  for (let i = 0; i < codePoints.length; i += size) chunks.push(codePoints.slice(i, i + size).join(''));
  return chunks;
}

/** Where a paced turn waits: before every text chunk and tool call, or once before an empty turn's finish. */
const PAUSE = Symbol('pause');
type Played = LanguageModelV3StreamPart | typeof PAUSE;

/** A turn's stream parts in order, with a PAUSE wherever a turn with a delay waits. */
function turnParts(turn: ScriptedTurn, modelId: string): Played[] {
  const paced = turn.delayMs > 0;
  const parts: Played[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: `scripted-${randomUUID()}`, modelId, timestamp: new Date() },
  ];
  const pause = (): void => {
    if (paced) parts.push(PAUSE);
  };
  const chunks = chunkText(turn.text, turn.chunkSize);
  if (chunks.length > 0) {
    const id = 'text-0';
    parts.push({ type: 'text-start', id });
    for (const delta of chunks) {
      pause();
      parts.push({ type: 'text-delta', id, delta });
    }
    parts.push({ type: 'text-end', id });
  }
  for (const call of turn.toolCalls) {
    pause();
    parts.push(
      { type: 'tool-input-start', id: call.toolCallId, toolName: call.toolName },
      { type: 'tool-input-delta', id: call.toolCallId, delta: call.input },
      { type: 'tool-input-end', id: call.toolCallId },
      { type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input },
    );
  }
  if (chunks.length + turn.toolCalls.length === 0) pause();
  parts.push({ type: 'finish', usage: turn.usage, finishReason: turn.finishReason });
  return parts;
}

/** The turn's delay spread evenly over its pauses. */
async function* playPaced(
  parts: readonly Played[],
  delayMs: number,
  signal: AbortSignal,
): AsyncGenerator<LanguageModelV3StreamPart> {
  const pauseMs = delayMs / Math.max(1, parts.filter((part) => part === PAUSE).length);
  for (const part of parts) {
    if (part === PAUSE) await delay(pauseMs, signal);
    else yield part;
  }
}

/**
 * `scripted:NAME`: a LanguageModelV3 that is not an LLM. It plays the scenario file NAME from the scenario
 * folder, deciding each turn from the prompt alone (see `scenarios/README.md`).
 */
export class ScriptedLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'scripted';
  readonly supportedUrls: Record<string, RegExp[]> = {};

  constructor(
    readonly modelId: string,
    private readonly store: ScenarioStore,
  ) {}

  async #plan(options: LanguageModelV3CallOptions): Promise<ScriptedTurn> {
    options.abortSignal?.throwIfAborted();
    const scenario = await this.store.load(this.modelId);
    return planScriptedTurn(this.modelId, scenario, options);
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const turn = await this.#plan(options);
    if (turn.delayMs > 0) await delay(turn.delayMs, options.abortSignal);
    const content: LanguageModelV3Content[] = [];
    if (turn.text !== '') content.push({ type: 'text', text: turn.text });
    for (const call of turn.toolCalls) content.push({ type: 'tool-call', ...call });
    return {
      content,
      finishReason: turn.finishReason,
      usage: turn.usage,
      warnings: [],
      response: { id: `scripted-${randomUUID()}`, modelId: this.modelId, timestamp: new Date() },
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    // Planned before the stream exists: an invalid scenario rejects doStream instead of half-streaming.
    const turn = await this.#plan(options);
    const parts = turnParts(turn, this.modelId);
    if (turn.delayMs <= 0) {
      // Nothing to wait for, so nothing to cancel: the whole turn is queued at once. A controller, an abort
      // listener and a generator hop per part cost more than the rest of the scripted call (the caller still
      // checks its own signal when the stream ends).
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          for (const part of parts) if (part !== PAUSE) controller.enqueue(part);
          controller.close();
        },
      });
      return { stream };
    }
    // Cancelling the stream (consumer gone) must also end a pending delay, not just the caller's abort. The
    // caller's abort is forwarded by a listener removed when the turn ends: `AbortSignal.any` per call cost
    // more than the rest of the turn, and on Node 20 its composite signals are kept alive by their sources.
    const cancelled = new AbortController();
    const outer = options.abortSignal;
    const forward = (): void => cancelled.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    const release = (): void => outer?.removeEventListener('abort', forward);
    const played = playPaced(parts, turn.delayMs, cancelled.signal);
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      async pull(controller) {
        try {
          const next = await played.next();
          if (next.done) {
            release();
            controller.close();
          } else controller.enqueue(next.value);
        } catch (error) {
          release();
          controller.error(error);
        }
      },
      async cancel(reason) {
        release();
        cancelled.abort(reason);
        await played.return(undefined);
      },
    });
    return { stream };
  }
}
