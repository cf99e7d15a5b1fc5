import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FinishReason,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { hashId } from '../../../core/ids.js';
import { countTokens, readPrompt, type PromptFacts } from './read-prompt.js';
import { TEMPLATE_PATTERN, type Scenario, type ScenarioArg, type ScenarioRule } from './scenario-schema.js';
import { validateScriptedToolCall } from './validate-scripted-tool-call.js';

export const DEFAULT_CHUNK_SIZE = 16;

export interface ScriptedToolCall {
  toolCallId: string;
  toolName: string;
  /** JSON-encoded arguments, as the V3 spec wants them. */
  input: string;
}

/** One model turn, fully decided before anything is emitted, so a bad scenario fails before any output. */
export interface ScriptedTurn {
  text: string;
  toolCalls: ScriptedToolCall[];
  delayMs: number;
  chunkSize: number;
  usage: LanguageModelV3Usage;
  finishReason: LanguageModelV3FinishReason;
}

function render(text: string, facts: PromptFacts): string {
  return text.replace(TEMPLATE_PATTERN, (whole, name: string) => {
    if (name === 'input') return facts.input;
    if (name === 'last_tool_result') return facts.lastToolResult;
    if (name === 'run_id') return facts.runIds.at(-1) ?? '';
    if (name === 'run_ids') return facts.runIds.join(',');
    return whole;
  });
}

function renderArg(value: ScenarioArg, facts: PromptFacts): ScenarioArg {
  if (typeof value === 'string' && /^\{\{\s*run_ids\s*\}\}$/.test(value)) return [...facts.runIds];
  if (typeof value === 'string') return render(value, facts);
  if (Array.isArray(value)) return value.map((item) => renderArg(item, facts));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderArg(item, facts)]));
  }
  return value;
}

/** First rule with a matching `when`, in file order; otherwise the first rule without `when`. */
export function selectRule(
  scenario: Scenario,
  input: string,
): { rule: ScenarioRule; index: number } | undefined {
  const lowered = input.toLowerCase();
  const conditional = scenario.rules.findIndex((rule) => {
    if (!rule.when) return false;
    if (rule.when.contains !== undefined && !lowered.includes(rule.when.contains.toLowerCase())) return false;
    if (rule.when.matches !== undefined && !new RegExp(rule.when.matches).test(input)) return false;
    return true;
  });
  const index = conditional >= 0 ? conditional : scenario.rules.findIndex((rule) => !rule.when);
  const rule = scenario.rules[index];
  return rule ? { rule, index } : undefined;
}

export function planScriptedTurn(
  name: string,
  scenario: Scenario,
  options: LanguageModelV3CallOptions,
): ScriptedTurn {
  const facts = readPrompt(options.prompt);
  const selected = selectRule(scenario, facts.input);
  let text = '';
  let toolCalls: ScriptedToolCall[] = [];
  let delayMs = 0;
  let chunkSize = DEFAULT_CHUNK_SIZE;

  if (!selected) {
    text = `(scenario ${name} has no rule for this message)`;
  } else {
    const { rule, index } = selected;
    const ruleLabel = rule.name ?? `rules[${index}]`;
    const step = rule.steps[facts.stepIndex];
    if (step) {
      text = step.text !== undefined ? render(step.text, facts) : '';
      delayMs = step.delay_ms ?? 0;
      chunkSize = step.chunk_size ?? DEFAULT_CHUNK_SIZE;
      // Ids derive from the prompt so a resumed run replaying this turn gets the same ids (and so the same
      // child threads and request ids downstream), while different turns never collide.
      const promptKey = JSON.stringify(options.prompt);
      toolCalls = (step.tool_calls ?? []).map((call, callIndex) => {
        const args = renderArg(call.args, facts);
        validateScriptedToolCall(
          options.tools,
          call.name,
          args,
          { scenario: name, rule: ruleLabel, step: facts.stepIndex },
          call.unoffered === true,
        );
        return {
          toolCallId: hashId('call_', `${name}\n${callIndex}\n${promptKey}`, 29),
          toolName: call.name,
          input: JSON.stringify(args),
        };
      });
    } else {
      // Past the script: settle with text only, so an agent loop can never spin on repeated tool calls.
      const last = rule.steps[rule.steps.length - 1];
      text = last?.text !== undefined ? render(last.text, facts) : `(scenario ${name} finished)`;
      chunkSize = last?.chunk_size ?? DEFAULT_CHUNK_SIZE;
    }
  }

  const outputChars =
    text.length + toolCalls.reduce((sum, call) => sum + call.toolName.length + call.input.length, 0);
  const inputTokens = countTokens(facts.chars);
  const outputTokens = countTokens(outputChars);
  const unified = toolCalls.length > 0 ? 'tool-calls' : 'stop';
  return {
    text,
    toolCalls,
    delayMs,
    chunkSize,
    usage: {
      inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
    },
    finishReason: { unified, raw: unified },
  };
}
