import type { ResolvedSubagent } from './resolved-subagent.js';
import { isReservedTool } from './reserved-names.js';

export const GENERAL_PURPOSE_NAME = 'general-purpose';

const DESCRIPTION =
  'For complex multi-step work on its own (research, searching and reading files, summarising), with your model ' +
  'and your tools except those subagents never get.';

const SYSTEM_PROMPT = [
  'You are a general-purpose subagent. The main agent handed you one task; do it completely and on your own.',
  'Use your tools as needed. You cannot ask the user questions and cannot start other agents.',
  'When you are done, answer with a concise, self-contained report of what you found or did: the main agent',
  'sees only your final answer, not your intermediate steps.',
].join('\n');

export interface GeneralPurposeInput {
  parentTools: readonly string[];
  parentModel: string;
  /** Tools subagents may not hold in this context, on top of the reserved ones. */
  disabledTools?: Iterable<string>;
}

/**
 * The built-in subagent (as in deepagents and Claude Code): the parent's tools minus reserved and disabled
 * ones, the parent's model, a generic prompt. Unlike inline specs it survives with zero tools — it is
 * the pure reasoner the zero-tool rule points authors to.
 */
export function generalPurposeSubagent(input: GeneralPurposeInput): ResolvedSubagent {
  const disabled = new Set(input.disabledTools ?? []);
  const tools = [...new Set(input.parentTools)].filter(
    (tool) => !isReservedTool(tool) && !disabled.has(tool),
  );
  return {
    name: GENERAL_PURPOSE_NAME,
    description: DESCRIPTION,
    system_prompt: SYSTEM_PROMPT,
    tools,
    model: input.parentModel,
    source: 'builtin',
    spec_index: null,
  };
}
