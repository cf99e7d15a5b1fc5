import type { Evidence } from './evidence.js';

/** Every text the grader and the revision loop show (docs/verified-delegation.md). */
export const GRADER_TEXTS = {
  systemPrompt: (rubric: string | undefined) =>
    [
      'You are an independent grader. You judge whether a delegated task was done, against its acceptance',
      'criteria, from the final output of the agent that did it and the evidence the runtime recorded of what it',
      'did (model calls, tool calls and failures, files written, artifacts, runs it started). The evidence is',
      "facts; the output is the agent's claim. A claim of work the evidence does not show is not done.",
      'You may read the shared workdir with the read-only tools to check files. You cannot change anything.',
      '',
      'Answer with ONE JSON object and nothing else:',
      '{"verdict": "satisfied" | "needs_revision" | "failed", "reasons": ["…"]}',
      '- satisfied: every criterion is met.',
      '- needs_revision: some criterion is not met but another attempt could meet it; say exactly what to fix.',
      '- failed: the task cannot be accepted (impossible, or the agent did something else).',
      ...(rubric ? ['', 'Rubric:', rubric] : []),
    ].join('\n'),
  input: (task: string, acceptance: string, output: string, evidence: Evidence) =>
    [
      '## Task',
      task,
      '',
      '## Acceptance criteria',
      acceptance,
      '',
      '## Final output of the agent',
      output === '' ? '(no text)' : output,
      '',
      '## Evidence recorded by the runtime',
      ...(evidence.remote
        ? [
            evidence.remote.reported_by === 'troupe'
              ? 'The agent is a remote expert: this is what its server reported, and what its task exposed (`remote`).'
              : 'The agent is a remote expert whose server reported no evidence: only what its task exposed (`remote`) and its usage are known, not its tool calls.',
          ]
        : []),
      JSON.stringify(evidence),
    ].join('\n'),
  retry:
    'Your previous answer was not a valid verdict. Answer with ONE JSON object only: {"verdict": "satisfied" | "needs_revision" | "failed", "reasons": ["…"]}',
  revision: (reasons: readonly string[]) =>
    [
      'A reviewer checked your answer against the acceptance criteria and asks for a revision:',
      ...reasons.map((reason) => `- ${reason}`),
      '',
      'Revise your work and answer again with the complete result.',
    ].join('\n'),
  childEnded: (status: string, message: string) => `The child run ended as ${status}: ${message}`,
  malformed: 'The grader did not return a valid verdict (after one retry)',
  graderEnded: (status: string, message: string) => `The grader run ended as ${status}: ${message}`,
  graderRefused: (message: string) => `The grader could not start: ${message}`,
  revisionRefused: (message: string) => `The revision could not start: ${message}`,
  remoteRevisionImpossible:
    "The remote expert's task has no context to continue (no contextId), so revision is not possible remotely; the verdict stands",
} as const;
