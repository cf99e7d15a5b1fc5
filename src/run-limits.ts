export interface RunLimits {
  maxSteps: number;
  /** Most subagent hops below a main-agent run (a delegated expert is one). */
  subagentMaxDepth: number;
  /** Most delegation hops in a chain: A → B → C with the default 2. */
  delegationMaxDepth: number;
  maxActiveChildrenPerRun: number;
  maxActiveChildrenPerUser: number;
  childResultCapBytes: number;
  /**
   * A tool result (built-in, MCP, or a child's result) over this many tokens is kept in a workdir file and the
   * model gets its head, tail, size and path (docs/model-calls.md#big-tool-results).
   */
  toolResultMaxTokens: number;
  waitTimeoutMs: number;
  /** A running run that emits nothing for this long is interrupted (docs/runs.md). */
  inactivityTimeoutMs: number;
  /** Share of its parent's remaining budget a child gets when it asks for none (0 < share ≤ 1). */
  childBudgetShare: number;
}

export const DEFAULT_LIMITS: RunLimits = {
  maxSteps: 25,
  subagentMaxDepth: 1,
  delegationMaxDepth: 2,
  maxActiveChildrenPerRun: 5,
  maxActiveChildrenPerUser: 20,
  childResultCapBytes: 32 * 1024,
  toolResultMaxTokens: 8000,
  waitTimeoutMs: 30 * 60 * 1000,
  inactivityTimeoutMs: 10 * 60 * 1000,
  childBudgetShare: 0.5,
};
