import type { LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';

/** What the scripted model needs from a prompt: all of it is derived, nothing is remembered between calls. */
export interface PromptFacts {
  /** Text of the last user message (parts joined by newlines); empty when there is none. */
  input: string;
  /** Text of the most recent tool result anywhere in the prompt; empty when there is none. */
  lastToolResult: string;
  /** Assistant messages after the last user message = model turns already played for it = the step to play. */
  stepIndex: number;
  /** Characters of prompt text, the basis of the deterministic input-token count. */
  chars: number;
  /** Distinct `run_id` fields of JSON tool results after the last user message, in order of appearance. */
  runIds: string[];
}

function runIdOf(text: string): string | undefined {
  // Most tool results are prose: a failed parse throws, and a throw costs more than the rest of the read.
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (
      parsed !== null &&
      typeof parsed === 'object' &&
      'run_id' in parsed &&
      typeof parsed.run_id === 'string'
    ) {
      return parsed.run_id;
    }
  } catch {
    // Not JSON: no run id in it.
  }
  return undefined;
}

/** Deterministic stand-in for a tokenizer, so usage accounting can be asserted exactly. */
export function countTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

export function toolResultText(output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason ?? 'Tool execution denied';
    case 'content':
      return output.value
        .map((part) => (part.type === 'text' ? part.text : ''))
        .filter((text) => text !== '')
        .join('\n');
  }
}

export function readPrompt(prompt: LanguageModelV3Prompt): PromptFacts {
  let lastUser = -1;
  let lastToolResult: string | undefined;
  let chars = 0;
  prompt.forEach((message, index) => {
    if (message.role === 'user') lastUser = index;
    if (message.role === 'system') {
      chars += message.content.length;
      return;
    }
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          chars += part.text.length;
          break;
        case 'tool-call':
          chars += part.toolName.length + JSON.stringify(part.input ?? null).length;
          break;
        case 'tool-result':
          lastToolResult = toolResultText(part.output);
          chars += lastToolResult.length;
          break;
        case 'file':
        case 'tool-approval-response':
          break;
      }
    }
  });

  const userMessage = lastUser >= 0 ? prompt[lastUser] : undefined;
  const input =
    userMessage?.role === 'user'
      ? userMessage.content
          .map((part) => (part.type === 'text' ? part.text : ''))
          .filter((text) => text !== '')
          .join('\n')
      : '';
  const sinceUser = prompt.slice(lastUser + 1);
  const stepIndex = sinceUser.filter((message) => message.role === 'assistant').length;
  const runIds: string[] = [];
  for (const message of sinceUser) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      const runId = part.type === 'tool-result' ? runIdOf(toolResultText(part.output)) : undefined;
      if (runId !== undefined && !runIds.includes(runId)) runIds.push(runId);
    }
  }
  return { input, lastToolResult: lastToolResult ?? '', stepIndex, chars, runIds };
}
