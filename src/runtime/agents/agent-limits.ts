import { z } from 'zod';
import type { AgentConfig, AgentLimits } from '../../core/records/agent.js';
import type { RunLimits } from '../../run-limits.js';
import { validationFailed, type ValidationIssue } from '../../core/to-validation-error.js';

/** Each per-agent limit, the server setting it narrows, and the variable that sets that server value. */
export const AGENT_LIMIT_FIELDS = {
  max_steps: { key: 'maxSteps', env: 'TROUPE_MAX_STEPS', min: 1 },
  subagent_max_depth: { key: 'subagentMaxDepth', env: 'TROUPE_SUBAGENT_MAX_DEPTH', min: 0 },
  delegation_max_depth: { key: 'delegationMaxDepth', env: 'TROUPE_DELEGATION_MAX_DEPTH', min: 0 },
  max_children_per_run: { key: 'maxActiveChildrenPerRun', env: 'TROUPE_MAX_CHILDREN_PER_RUN', min: 0 },
  max_children_per_user: { key: 'maxActiveChildrenPerUser', env: 'TROUPE_MAX_CHILDREN_PER_USER', min: 0 },
  child_result_cap_bytes: { key: 'childResultCapBytes', env: 'TROUPE_CHILD_RESULT_CAP_BYTES', min: 1 },
  tool_result_max_tokens: { key: 'toolResultMaxTokens', env: 'TROUPE_TOOL_RESULT_MAX_TOKENS', min: 1 },
  wait_timeout_ms: { key: 'waitTimeoutMs', env: 'TROUPE_WAIT_TIMEOUT_MS', min: 1 },
  inactivity_timeout_ms: { key: 'inactivityTimeoutMs', env: 'TROUPE_INACTIVITY_TIMEOUT_MS', min: 1 },
} as const satisfies Record<keyof AgentLimits, { key: keyof RunLimits; env: string; min: number }>;

type LimitName = keyof typeof AGENT_LIMIT_FIELDS;
const LIMIT_NAMES = Object.keys(AGENT_LIMIT_FIELDS) as LimitName[];

/** Only a sanity bound: the real ceiling is the server's value, checked when the agent is saved. */
const ABSOLUTE_MAX = 1_000_000_000;

function limit(name: LimitName) {
  const { min, env } = AGENT_LIMIT_FIELDS[name];
  return z
    .number()
    .int()
    .min(min)
    .max(ABSOLUTE_MAX)
    .optional()
    .describe(`At most the server's ${env}; a higher value is refused (400 validation_failed)`);
}

export const agentLimitsSchema = z
  .object({
    max_steps: limit('max_steps'),
    subagent_max_depth: limit('subagent_max_depth'),
    delegation_max_depth: limit('delegation_max_depth'),
    max_children_per_run: limit('max_children_per_run'),
    max_children_per_user: limit('max_children_per_user'),
    child_result_cap_bytes: limit('child_result_cap_bytes'),
    tool_result_max_tokens: limit('tool_result_max_tokens'),
    wait_timeout_ms: limit('wait_timeout_ms'),
    inactivity_timeout_ms: limit('inactivity_timeout_ms'),
  })
  .strict()
  .describe(
    "Per-agent limits (docs/subagents.md). Each may only narrow the server's value: a save above it is 400 " +
      'validation_failed; if the server value is lowered later, the lower one applies at run time.',
  );

/** The agent's value for a limit; `config.max_steps` is the older spelling of `limits.max_steps`. */
function agentValues(config: AgentConfig, name: LimitName): number[] {
  const values = [config.limits?.[name]];
  if (name === 'max_steps') values.push(config.max_steps);
  return values.filter((value): value is number => value !== undefined);
}

/**
 * The limits a run of this agent works under: the server's, narrowed by the agent's own. Always the smaller
 * of the two, so an agent saved before the server lowered a limit still cannot exceed it.
 */
export function effectiveLimits(server: RunLimits, config: AgentConfig): RunLimits {
  const limits: RunLimits = { ...server };
  for (const name of LIMIT_NAMES) {
    const { key } = AGENT_LIMIT_FIELDS[name];
    limits[key] = Math.min(server[key], ...agentValues(config, name));
  }
  return limits;
}

/** Agent values above the server's: what a save refuses. */
export function limitsAboveServer(server: RunLimits, config: AgentConfig): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const name of LIMIT_NAMES) {
    const { key, env } = AGENT_LIMIT_FIELDS[name];
    const paths =
      name === 'max_steps' ? ['config.limits.max_steps', 'config.max_steps'] : [`config.limits.${name}`];
    const values =
      name === 'max_steps' ? [config.limits?.max_steps, config.max_steps] : [config.limits?.[name]];
    values.forEach((value, index) => {
      if (value !== undefined && value > server[key]) {
        issues.push({
          path: paths[index] ?? `config.limits.${name}`,
          message: `must be at most ${server[key]}, the server's ${env}; an agent may narrow a limit, never raise it`,
          code: 'too_big',
        });
      }
    });
  }
  return issues;
}

/** Throws `validation_failed` naming every limit above the server's value. */
export function assertLimitsWithinServer(server: RunLimits, config: AgentConfig): void {
  const issues = limitsAboveServer(server, config);
  if (issues.length === 0) return;
  throw validationFailed(issues);
}
