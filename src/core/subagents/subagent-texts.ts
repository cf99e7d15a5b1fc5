import { CHILD_RUN_LIMIT_TEXTS } from '../runs/child-run-limits.js';

/**
 * Every text the subagent tools show the model (docs/subagents.md#tools, in English). Kept in one place so tests, docs and
 * the console agree on them; the limit texts are the child-run limits' own.
 */
export const SUBAGENT_TEXTS = {
  unknownSlug: (slug: string, allowed: readonly string[]) =>
    `Cannot call subagent ${slug}; the available subagents are: ${allowed.map((name) => `\`${name}\``).join(', ') || '(none)'}`,
  notOwned: 'subagent run not found or not owned by this run',
  creatorNotRunning: 'The parent run has ended; it cannot start subagents',
  subagentCannotStart: 'Subagents cannot start subagents',
  parentMissing: 'The parent run does not exist',
  ...CHILD_RUN_LIMIT_TEXTS.subagent,
  busy: 'This subagent thread already has an active run; wait for it, check its status, or cancel it before continuing',
  threadNotInConversation: (threadId: string) =>
    `Cannot continue subagent thread ${threadId}: no run of it was found in this conversation`,
  threadOfOtherSubagent: (threadId: string, slug: string) =>
    `Subagent thread ${threadId} belongs to subagent ${slug}`,
  emptyDescription: 'description must not be empty',
  threadPrefix: (threadId: string) => `> Subagent thread ID: ${threadId}\n\n---\n\n`,
  noText: 'The subagent finished without returning any text.',
  runEnded: (status: string, message: string) => `The subagent run ended as ${status}: ${message}`,
  stillRunning: (status: string, runId: string) =>
    [
      `The subagent is still running (status: ${status}) and has not returned a final result yet.`,
      `run_id: ${runId}`,
      'Check later with subagent_status or subagent_await; do not treat this as a finished task.',
    ].join('\n'),
  awaitTimedOut: 'The subagent is still running; waiting for its final result timed out. Check again later.',
  steerNotActive: (status: string) => `The subagent run is ${status}; only an active run can be steered`,
  steered: 'The message was queued; the subagent reads it before its next step.',
  toolNotAvailable: (name: string) =>
    `tool ${name} is not available to subagents in this approval mode; hand the result back to the main agent`,
} as const;

export const SUBAGENT_PROMPT_HEADING = '## `task` (subagent tools)';
