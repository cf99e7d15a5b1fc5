import type { Agent } from '../../core/records/agent.js';
import { SUBAGENT_PROMPT_HEADING } from '../../core/subagents/subagent-texts.js';

/** The system-prompt section a main agent gets when it has subagents (docs/subagents.md#prompt-section, in English). */
export function subagentPromptSection(allowed: readonly Agent[]): string {
  return [
    SUBAGENT_PROMPT_HEADING,
    '',
    'You can hand complex, independent subtasks to subagents with `task`. A subagent works in its own thread and returns only its final result; its intermediate steps are not visible to you.',
    'The result starts with the subagent thread ID; pass it back as `thread_id` to continue the same subtask.',
    '',
    'How to use subagents:',
    '- Use them for complex work that can be done independently, or to keep your own context small.',
    '- Start independent subtasks in parallel (several calls in one turn).',
    '- Pass an earlier `thread_id` only to continue that subtask, never for a new one; never use the same `thread_id` in parallel.',
    '- Do not delegate simple questions or a couple of direct tool calls.',
    '- Pick an available `subagent_slug` and describe the goal, the context and the expected output in `description`.',
    '- Never call subagents through shell, curl, HTTP or a CLI.',
    '',
    'Background subagents:',
    '- Prefer `subagent_start` for long or parallel work: it returns `run_id` and `thread_id` at once and you keep working.',
    '- `subagent_status` shows status and recent progress, `subagent_steer` sends a running subagent a follow-up, `subagent_cancel` cancels, and `subagent_await` waits when you really need the result (`run_ids` with `mode` "all" or "any" waits for several).',
    '- A thread with a run in progress answers `busy`; nothing is queued behind your back.',
    '- Keep using `task` for short subtasks whose result you need right away.',
    '',
    'Available subagent slugs:',
    '',
    allowed.map((agent) => `- ${agent.slug}: ${agent.description || agent.name}`).join('\n'),
  ].join('\n');
}
