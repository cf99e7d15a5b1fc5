import { parseModelSpec } from '../models/parse-model-spec.js';

/** OpenTelemetry GenAI semantic-convention attribute names (docs/gen-ai of open-telemetry/semantic-conventions). */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  agentDescription: 'gen_ai.agent.description',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolDescription: 'gen_ai.tool.description',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens',
  usageReasoningTokens: 'gen_ai.usage.reasoning.output_tokens',
  errorType: 'error.type',
} as const;

/** Troupe's own attributes, namespaced so they never collide with a convention. */
export const TROUPE = {
  runId: 'troupe.run.id',
  runType: 'troupe.run.type',
  runStatus: 'troupe.run.status',
  runAttempt: 'troupe.run.attempt',
  rootRunId: 'troupe.run.root_id',
  parentRunId: 'troupe.run.parent_id',
  depth: 'troupe.run.depth',
  modelSpec: 'troupe.model.spec',
  /** The spec of the model that answered a call a fallback took over. */
  modelAnswered: 'troupe.model.answered',
  step: 'troupe.step',
  awaitingApproval: 'troupe.tool.awaiting_approval',
} as const;

/**
 * `gen_ai.provider.name` and `gen_ai.request.model` of a `provider:model` spec. An OpenAI-compatible
 * endpoint is named after its configured NAME (`deepseek`, `ollama`, …), which is what a trace reader
 * recognises; a scripted model says `scripted`, so it is never mistaken for an LLM.
 */
export function modelAttributes(spec: string): { provider: string; model: string } {
  try {
    const parsed = parseModelSpec(spec);
    switch (parsed.provider) {
      case 'openai':
      case 'anthropic':
        return { provider: parsed.provider, model: parsed.model };
      case 'openai-compatible':
        return { provider: parsed.endpoint, model: parsed.model };
      case 'scripted':
        return { provider: 'scripted', model: parsed.scenario };
      case 'unknown':
        return { provider: parsed.name, model: spec.slice(parsed.name.length + 1) };
    }
  } catch {
    // A spec that does not parse fails the run elsewhere; the span still needs some value.
  }
  return { provider: '_OTHER', model: spec };
}
