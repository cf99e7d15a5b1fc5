/**
 * The one-`task` dispatch scenario both dispatch benchmarks play (embedded: suites/dispatch.ts; PostgreSQL,
 * Redis and separate processes: suites/scale-out.ts), so their figures measure the same work. A message
 * containing "plain" is the baseline: the same main agent answers at once, without a dispatch.
 */
export const MAIN_SCENARIO = `
rules:
  - name: plain
    when: { contains: plain }
    steps:
      - text: "Plain answer to {{input}}"
  - name: dispatch
    steps:
      - tool_calls:
          - name: task
            args: { subagent_slug: helper, description: "Investigate: {{input}}" }
      - text: "Main got: {{last_tool_result}}"
`;

export const HELPER_SCENARIO = `
rules:
  - steps:
      - text: "Helper report on <{{input}}>"
`;

/**
 * How both suites time the scenario one dispatch at a time, so the scale-out ratio divides like by like: `warmup`
 * dispatches then `warmup` plain runs, unrecorded; then `rounds` rounds of `task` dispatches followed by `plain`
 * plain runs, every one timed (BENCHMARKS.md, "The same dispatches on both sides of the ratio").
 */
export const SEQUENTIAL_PLAN = { warmup: 20, rounds: 3, task: 60, plain: 20 } as const;
export const QUICK_SEQUENTIAL_PLAN = { warmup: 5, rounds: 2, task: 10, plain: 5 } as const;
export type SequentialPlan = typeof SEQUENTIAL_PLAN | typeof QUICK_SEQUENTIAL_PLAN;

export const WORKDIR_TOOLS = ['read_file', 'write_file', 'edit_file', 'ls', 'glob', 'grep'];

/** Agent configs of the scenario: `helper` is a subagent, `main` may dispatch to it. */
export const HELPER_CONFIG = { model: 'scripted:helper', tools: ['read_file', 'ls', 'glob', 'grep'] };
export const MAIN_CONFIG = {
  model: 'scripted:main',
  tools: WORKDIR_TOOLS,
  subagents: ['helper'],
  tool_approval_mode: 'always_trust' as const,
};

/** What the finished run must answer: the dispatch quotes the helper's report, the baseline the input. */
export function expectedAnswer(kind: 'task' | 'plain', input: string): string {
  return kind === 'plain' ? `Plain answer to ${input}` : `Helper report on <Investigate: ${input}>`;
}
