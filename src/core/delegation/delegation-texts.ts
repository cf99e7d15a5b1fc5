import { CHILD_RUN_LIMIT_TEXTS } from '../runs/child-run-limits.js';

/**
 * Every text delegation shows a model or a client. The first two are the docs/delegation.md wording, matched by
 * clients of `POST /api/delegate`, so they never change.
 */
export const DELEGATION_TEXTS = {
  notFound: 'Expert not found or access denied',
  notDelegatable: 'Expert is not delegatable',
  notPublished: 'Expert is not published',
  self: 'An expert cannot delegate to itself',
  emptyTask: 'task must not be empty',
  subagentCannotDelegate: 'Subagents cannot delegate to experts; hand the result back to the main agent',
  parentNotActive: 'The delegating run has already ended; it cannot delegate',
  cycle: (chain: readonly string[], target: string) =>
    `Delegation cycle refused: ${target} is already working in this delegation chain (${[...chain, target].join(' → ')})`,
  ...CHILD_RUN_LIMIT_TEXTS.delegation,
  runEnded: (status: string, message: string) => `The delegated expert's run ended as ${status}: ${message}`,
  noText: 'The delegated expert finished without returning any text.',
  stillRunning: (status: string, runId: string) =>
    [
      `The delegated expert is still working (status: ${status}) and has not returned a final result yet.`,
      `run_id: ${runId}`,
      'Do not treat this as a finished task; its result will be in its delegation conversation.',
    ].join('\n'),
} as const;

export const DELEGATION_PROMPT_HEADING = '## `delegate` (other experts)';
