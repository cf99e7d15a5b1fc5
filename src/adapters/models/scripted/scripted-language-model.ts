import { randomUUID } from 'node:crypto';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { delay } from './delay.js';
import { planScriptedTurn, type ScriptedTurn } from './plan-scripted-turn.js';
import type { ScenarioStore } from './scenario-store.js';

/** Splits by code points so a chunk never ends in half a surrogate pair. */
function chunkText(text: string, size: number): string[] {
  const codePoints = Array.from(text);
  const chunks: string[] = [];
  for (let i = 0; i < codePoints.length; i += size) chunks.push(codePoints.slice(i, i + size).join(''));
  return chunks;
}

async function* playTurn(
  turn: ScriptedTurn,
  modelId: string,
  signal: AbortSignal,
): AsyncGenerator<LanguageModelV3StreamPart> {
  yield { type: 'stream-start', warnings: [] };
  yield { type: 'response-metadata', id: `scripted-${randomUUID()}`, modelId, timestamp: new Date() };

  const chunks = chunkText(turn.text, turn.chunkSize);
  const emissions = chunks.length + turn.toolCalls.length;
  const pause = emissions > 0 ? turn.delayMs / emissions : 0;
  const wait = async (): Promise<void> => {
    if (pause > 0) await delay(pause, signal);
    else signal.throwIfAborted();
  };
  if (emissions === 0 && turn.delayMs > 0) await delay(turn.delayMs, signal);

  if (chunks.length > 0) {
    const id = 'text-0';
    yield { type: 'text-start', id };
    for (const chunk of chunks) {
      await wait();
      yield { type: 'text-delta', id, delta: chunk };
    }
    yield { type: 'text-end', id };
  }
  for (const call of turn.toolCalls) {
    await wait();
    yield { type: 'tool-input-start', id: call.toolCallId, toolName: call.toolName };
    yield { type: 'tool-input-delta', id: call.toolCallId, delta: call.input };
    yield { type: 'tool-input-end', id: call.toolCallId };
    yield { type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input };
  }
  yield { type: 'finish', usage: turn.usage, finishReason: turn.finishReason };
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
    // Cancelling the stream (consumer gone) must also end a pending delay, not just the caller's abort. The
    // caller's abort is forwarded by a listener removed when the turn ends: `AbortSignal.any` per call cost
    // more than the rest of the turn, and on Node 20 its composite signals are kept alive by their sources.
    const cancelled = new AbortController();
    const outer = options.abortSignal;
    const forward = (): void => cancelled.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    const release = (): void => outer?.removeEventListener('abort', forward);
    const parts = playTurn(turn, this.modelId, cancelled.signal);
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      async pull(controller) {
        try {
          const next = await parts.next();
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
        await parts.return(undefined);
      },
    });
    return { stream };
  }
}
