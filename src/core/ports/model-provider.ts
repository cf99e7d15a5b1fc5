import type { LanguageModelV3 } from '@ai-sdk/provider';

export interface ResolvedModel {
  model: LanguageModelV3;
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
}

/** Turns `provider:model` strings into AI SDK models. Throws `invalid_model_spec` / `model_not_found`. */
export interface ModelProvider {
  resolve(spec: string): ResolvedModel;
}
