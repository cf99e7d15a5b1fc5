import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { TroupeError } from '../../core/errors.js';
import type {
  ModelProvider,
  OpenAiCompatibleEndpoint,
  ResolvedModel,
} from '../../core/ports/model-provider.js';
import type { PromptCaching } from './ai-sdk/prompt-cache-hints.js';
import { streamLanguageModel } from './ai-sdk/stream-language-model.js';
import { openAiCompatibleUsage } from './ai-sdk/openai-compatible-usage.js';
import { MODEL_PROVIDERS, parseModelSpec } from './parse-model-spec.js';
import { ScenarioStore } from './scripted/scenario-store.js';
import { ScriptedLanguageModel } from './scripted/scripted-language-model.js';

export interface ModelProviderOptions {
  /** Folder of scenario files for `scripted:NAME`. */
  scenarioDir: string;
  /** Named endpoints for `openai-compatible:NAME:MODEL`. */
  openaiCompatible: Record<string, OpenAiCompatibleEndpoint>;
  openaiBaseUrl?: string;
  /** Falls back to the OPENAI_API_KEY environment variable (read by the SDK at call time). */
  openaiApiKey?: string;
  anthropicBaseUrl?: string;
  /** Falls back to the ANTHROPIC_API_KEY environment variable (read by the SDK at call time). */
  anthropicApiKey?: string;
}

/** A model every provider here gives: an AI SDK LanguageModelV3 behind Troupe's stream. */
export interface AiSdkResolvedModel extends ResolvedModel {
  model: LanguageModelV3;
}

export interface AiSdkModelProvider extends ModelProvider {
  resolve(spec: string): AiSdkResolvedModel;
}

function resolved(
  model: LanguageModelV3,
  fields: Omit<ResolvedModel, 'stream'>,
  caching: PromptCaching = 'none',
): AiSdkResolvedModel {
  return { ...fields, model, stream: (request) => streamLanguageModel(model, request, caching) };
}

/** An OpenAI or Anthropic model: its provider is also how its prompts are cached. */
function firstParty(
  model: LanguageModelV3,
  spec: string,
  provider: 'openai' | 'anthropic',
  name: string,
): AiSdkResolvedModel {
  return resolved(model, { spec, provider, label: spec, limitKey: { provider, model: name } }, provider);
}

export function scriptedLabel(scenario: string): string {
  return `scripted:${scenario} (scripted — not an LLM)`;
}

export function createModelProvider(options: ModelProviderOptions): AiSdkModelProvider {
  const store = new ScenarioStore(options.scenarioDir);
  const cache = new Map<string, AiSdkResolvedModel>();
  // Provider instances are created on first use, so a server that only plays scenarios never touches them.
  let openai: ReturnType<typeof createOpenAI> | undefined;
  let anthropic: ReturnType<typeof createAnthropic> | undefined;
  const compatible = new Map<string, ReturnType<typeof createOpenAICompatible>>();
  const endpointNames = () => Object.keys(options.openaiCompatible).sort();

  function describeConfigured(): string {
    const endpoints = endpointNames();
    const scenarios = store.list();
    return (
      `configured providers: openai, anthropic, ` +
      `openai-compatible (endpoints: ${endpoints.length > 0 ? endpoints.join(', ') : 'none'}), ` +
      `scripted (scenarios: ${scenarios.length > 0 ? scenarios.join(', ') : 'none'})`
    );
  }

  function build(spec: string): AiSdkResolvedModel {
    const parsed = parseModelSpec(spec);
    switch (parsed.provider) {
      case 'openai': {
        openai ??= createOpenAI({ baseURL: options.openaiBaseUrl, apiKey: options.openaiApiKey });
        // Chat Completions rather than the Responses API: it is what OpenAI-compatible gateways implement.
        return firstParty(openai.chat(parsed.model), spec, 'openai', parsed.model);
      }
      case 'anthropic': {
        anthropic ??= createAnthropic({ baseURL: options.anthropicBaseUrl, apiKey: options.anthropicApiKey });
        return firstParty(anthropic.languageModel(parsed.model), spec, 'anthropic', parsed.model);
      }
      case 'openai-compatible': {
        const name =
          parsed.endpoint in options.openaiCompatible ? parsed.endpoint : parsed.endpoint.toLowerCase();
        const endpoint = options.openaiCompatible[name];
        if (!endpoint) {
          const endpoints = endpointNames();
          throw new TroupeError(
            'model_not_found',
            `Unknown openai-compatible endpoint "${parsed.endpoint}" in "${spec}"; configured endpoints: ` +
              `${endpoints.length > 0 ? endpoints.join(', ') : 'none'} ` +
              `(set TROUPE_OPENAI_COMPATIBLE_<NAME>_BASE_URL)`,
            { details: { spec, endpoint: parsed.endpoint, configured: endpoints } },
          );
        }
        let provider = compatible.get(name);
        if (!provider) {
          provider = createOpenAICompatible({
            name,
            baseURL: endpoint.baseURL,
            apiKey: endpoint.apiKey,
            includeUsage: true,
            // DeepSeek's cache hits too (docs/model-calls.md#prompt-caching).
            convertUsage: openAiCompatibleUsage,
          });
          compatible.set(name, provider);
        }
        return resolved(
          provider.chatModel(parsed.model),
          {
            spec,
            provider: 'openai-compatible',
            label: spec,
            limitKey: { provider: `openai-compatible:${name}`, model: parsed.model },
            ...(endpoint.window ? { declaredWindow: () => Promise.resolve(endpoint.window) } : {}),
          },
          // Opt-in: some servers refuse a body field they do not know.
          endpoint.promptCacheKey === true ? { promptCacheKeyOf: name } : 'none',
        );
      }
      case 'scripted':
        if (store.find(parsed.scenario) === undefined) throw store.notFound(parsed.scenario);
        return resolved(new ScriptedLanguageModel(parsed.scenario, store), {
          spec,
          provider: 'scripted',
          label: scriptedLabel(parsed.scenario),
          limitKey: { provider: 'scripted', model: parsed.scenario },
          declaredWindow: async () => {
            const { context_window, max_output_tokens } = await store.load(parsed.scenario);
            return { context_window, max_output_tokens };
          },
        });
      case 'unknown':
        throw new TroupeError(
          'model_not_found',
          `Unknown model provider "${parsed.name}" in "${spec}"; ${describeConfigured()}`,
          { details: { spec, provider: parsed.name, providers: [...MODEL_PROVIDERS] } },
        );
    }
  }

  return {
    resolve(spec: string): AiSdkResolvedModel {
      const cached = cache.get(spec);
      // A scripted model looks its file up on every call (`ScenarioStore.load`): an edit or a deletion shows up
      // at the next model call, with no look-up here as well.
      if (cached) return cached;
      const resolved = build(spec);
      cache.set(spec, resolved);
      return resolved;
    },
  };
}
