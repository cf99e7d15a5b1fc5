import { BUDGET_DIMENSIONS } from '../budgets/budget-dimension.js';
import type { BudgetAmounts } from '../budgets/budget.js';
import type { TokenUsage } from '../records/run.js';

/**
 * The A2A extension one Troupe server uses to delegate to another (README "Remote A2A experts"): under this
 * key of the message's `metadata` travel what the remote must honour (the caller's remaining budget and
 * deadline), the trace to join and who asks; under the same key of the task's (and its last status
 * update's) `metadata` the remote answers with what the task used and, once it ended, its evidence.
 */
export const DELEGATION_EXTENSION_URI = 'urn:troupe:a2a:delegation:v1';

/** What a delegating Troupe sends with a task. */
export interface DelegationContext {
  /** The delegating run's remaining budget; the remote task's ledger never gets more. */
  budget?: Partial<BudgetAmounts>;
  /** ISO 8601: the remote task's wall time ends here. */
  deadline?: string;
  /** W3C trace context of the call that delegated: the remote run's spans join that trace. */
  traceparent?: string;
  /** A signed claim of the delegating user (a compact JWS, see `caller-claim.ts`). */
  caller?: string;
}

export interface ContextViolation {
  field: string;
  description: string;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const MAX_CLAIM_LENGTH = 4096;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The delegation context of a message's metadata: absent, read, or the first field that is wrong. */
export function readDelegationContext(
  metadata: unknown,
): { context: DelegationContext | undefined } | { violation: ContextViolation } {
  const raw = isObject(metadata) ? metadata[DELEGATION_EXTENSION_URI] : undefined;
  if (raw === undefined) return { context: undefined };
  const field = (name: string) => `message.metadata["${DELEGATION_EXTENSION_URI}"].${name}`;
  if (!isObject(raw))
    return { violation: { field: field('').slice(0, -1), description: 'must be an object' } };
  const context: DelegationContext = {};
  if (raw.budget !== undefined) {
    if (!isObject(raw.budget))
      return { violation: { field: field('budget'), description: 'must be an object' } };
    const budget: Partial<BudgetAmounts> = {};
    for (const dimension of BUDGET_DIMENSIONS) {
      const value = raw.budget[dimension];
      if (value === undefined) continue;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
        return {
          violation: { field: field(`budget.${dimension}`), description: 'must be a non-negative integer' },
        };
      }
      budget[dimension] = value;
    }
    context.budget = budget;
  }
  if (raw.deadline !== undefined) {
    if (typeof raw.deadline !== 'string' || Number.isNaN(Date.parse(raw.deadline)))
      return { violation: { field: field('deadline'), description: 'must be an ISO 8601 time' } };
    context.deadline = new Date(raw.deadline).toISOString();
  }
  if (raw.traceparent !== undefined) {
    if (typeof raw.traceparent !== 'string' || !TRACEPARENT.test(raw.traceparent))
      return { violation: { field: field('traceparent'), description: 'must be a W3C traceparent' } };
    context.traceparent = raw.traceparent;
  }
  if (raw.caller !== undefined) {
    if (typeof raw.caller !== 'string' || raw.caller.length > MAX_CLAIM_LENGTH)
      return { violation: { field: field('caller'), description: 'must be a signed claim (a compact JWS)' } };
    context.caller = raw.caller;
  }
  return { context };
}

/**
 * The evidence a remote Troupe reports under the extension's key of a terminal task's metadata (unchecked here:
 * the caller validates it as evidence, docs/verified-delegation.md#remote-experts).
 */
export function reportedEvidence(metadata: unknown): unknown {
  const raw = isObject(metadata) ? metadata[DELEGATION_EXTENSION_URI] : undefined;
  return isObject(raw) ? raw.evidence : undefined;
}

/** The usage a remote Troupe reports under the extension's key of a task's or status update's metadata. */
export function reportedUsage(metadata: unknown): TokenUsage | undefined {
  const raw = isObject(metadata) ? metadata[DELEGATION_EXTENSION_URI] : undefined;
  const usage = isObject(raw) ? raw.usage : undefined;
  if (!isObject(usage)) return undefined;
  const count = (key: string) => {
    const value = usage[key];
    return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
  };
  const input = count('input_tokens');
  const output = count('output_tokens');
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    model_calls: count('model_calls'),
    aborted_model_calls: count('aborted_model_calls'),
  };
}
