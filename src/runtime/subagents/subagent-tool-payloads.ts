import type { Agent } from '../../core/records/agent.js';
import { isTerminalStatus, type Run } from '../../core/records/run.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import type { ToolOutput } from '../../core/tools/troupe-tool.js';
import type { SubagentStartOutcome } from './subagent-run-service.js';
import { verificationPayload, type Verification } from '../../core/verification/verification.js';

/** What `task` and the lifecycle tools answer the model: the payloads of docs/subagents.md#tools. */
export const eventsUrl = (runId: string) => `/api/agent/runs/${runId}/events`;
export const resultUrl = (runId: string) => `/api/agent/runs/${runId}/result`;

export function listing(allowed: readonly Agent[]): string {
  return allowed.map((agent) => `- ${agent.slug}: ${agent.description || agent.name}`).join('\n');
}

export function busyPayload(outcome: Extract<SubagentStartOutcome, { kind: 'busy' }>): ToolOutput {
  return {
    status: 'busy',
    thread_id: outcome.threadId,
    active_run_id: outcome.activeRun?.id ?? null,
    active_run_status: outcome.activeRun?.status ?? null,
    message: SUBAGENT_TEXTS.busy,
  };
}

export function runResult(run: Run): ToolOutput {
  return {
    status: run.status,
    output: run.output ?? '',
    run_id: run.id,
    thread_id: run.thread_id,
    // The totals: which models ran (`by_model`) is the trace's business, not the parent model's.
    usage: run.usage
      ? {
          input_tokens: run.usage.input_tokens,
          output_tokens: run.usage.output_tokens,
          total_tokens: run.usage.total_tokens,
          model_calls: run.usage.model_calls,
        }
      : null,
    ...(run.error ? { error: { ...run.error } } : {}),
  };
}

// Module-level: the model-facing schemas are converted to JSON Schema once, not once per run.

export function awaitPayload(
  run: Run,
  timedOut: boolean,
  verification?: Verification,
): Record<string, ToolOutput> {
  return {
    status: run.status,
    run_id: run.id,
    thread_id: run.thread_id,
    result: runResult(run),
    ...(verification ? { verification: verificationPayload(verification) } : {}),
    ...(timedOut && !isTerminalStatus(run.status)
      ? { wait_timed_out: true, message: SUBAGENT_TEXTS.awaitTimedOut }
      : {}),
  };
}
