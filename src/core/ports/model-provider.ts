import type { DeclaredWindow } from '../model-calls/model-windows.js';
import type { ModelStreamPart, ModelTurnRequest } from './model-stream.js';

export interface ResolvedModel {
  /** The `provider:model` string it was resolved from. */
  spec: string;
  provider: 'openai' | 'anthropic' | 'openai-compatible' | 'scripted';
  /** What a user is shown, e.g. `scripted:demo (scripted)`: a scripted model is never passed off as an LLM. */
  label: string;
  /**
   * What `TROUPE_MODEL_LIMITS` calls it: the provider key (`openai`, `anthropic`, `openai-compatible:NAME`,
   * `scripted`) and the model id within it.
   */
  limitKey: { provider: string; model: string };
  /**
   * One model turn, streamed (docs/agent-loop.md#one-model-call). A provider failure comes as an `error` part
   * or a rejection; the stream ends, rejecting with the signal's reason, as soon as the signal aborts.
   */
  stream(request: ModelTurnRequest): AsyncIterable<ModelStreamPart>;
  /**
   * The window the model's endpoint or scenario declares (docs/model-calls.md#context-windows), read once per
   * attempt (a scenario file may change); undefined when it declares none.
   */
  declaredWindow?(): Promise<DeclaredWindow | undefined>;
}

/** An `openai-compatible:NAME:…` endpoint (`TROUPE_OPENAI_COMPATIBLE_<NAME>_*`). */
export interface OpenAiCompatibleEndpoint {
  baseURL: string;
  apiKey?: string | undefined;
  /** What every model of the endpoint reads and writes, when configured. */
  window?: DeclaredWindow;
  /** Send the thread's `prompt_cache_key` (`TROUPE_OPENAI_COMPATIBLE_<NAME>_PROMPT_CACHE_KEY`); off by default. */
  promptCacheKey?: boolean;
}

/** Turns `provider:model` strings into models. Throws `invalid_model_spec` / `model_not_found`. */
export interface ModelProvider {
  resolve(spec: string): ResolvedModel;
}
