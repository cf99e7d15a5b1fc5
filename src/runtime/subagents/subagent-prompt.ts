import type { Agent } from '../../core/records/agent.js';
import { SUBAGENT_PROMPT_HEADING } from '../../core/subagents/subagent-texts.js';
import { listing } from './subagent-tool-payloads.js';

/**
 * The system-prompt section a main agent gets when it has subagents (docs/subagents.md#prompt-section): the
 * one place the model reads the subagent list; the tool descriptions point here instead of repeating it.
 */
export function subagentPromptSection(allowed: readonly Agent[]): string {
  return [
    SUBAGENT_PROMPT_HEADING,
    '',
    '`task` hands a self-contained subtask to a subagent, which works in its own thread and returns only its final result. The result starts with the subagent thread ID: pass it as `thread_id` only to continue that subtask, never for a new one, never twice in parallel.',
    '- Use subagents for complex independent work or to keep your context small, not for simple questions or a couple of tool calls.',
    '- Start independent subtasks in parallel (several calls in one turn).',
    '- `subagent_start` runs one in the background for long work; the other `subagent_*` tools then act on it.',
    '- Never call subagents through shell, curl, HTTP or a CLI.',
    '',
    'Available subagent slugs:',
    '',
    listing(allowed),
  ].join('\n');
}
