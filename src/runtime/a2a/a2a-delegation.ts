import type { KeyObject } from 'node:crypto';
import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { narrowBudget } from '../../core/budgets/narrow-budget.js';
import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import type { Evidence } from '../../core/verification/evidence.js';
import {
  DELEGATION_EXTENSION_URI,
  readDelegationContext,
} from '../../core/remote-experts/delegation-context.js';
import { verifyCallerClaim } from '../../core/remote-experts/caller-claim.js';
import type { PostMessageInput } from '../runs/run-service-api.js';

/**
 * What a task delegated by another Troupe server starts with (README "Remote A2A experts"): its ledger is
 * the expert's budget narrowed to what the caller had left, its wall time ends at the caller's deadline,
 * its spans join the caller's trace, and a caller claim signed by an issuer this server trusts is kept on
 * the run. A claim from an unknown issuer is ignored; one that fails its checks refuses the message.
 */
export function delegatedRunInput(
  message: Message,
  expert: Agent,
  trusted: ReadonlyMap<string, KeyObject>,
  audience: string,
  now: Date,
): Pick<PostMessageInput, 'budget' | 'traceparent' | 'caller'> {
  const read = readDelegationContext(message.metadata);
  if ('violation' in read)
    throw new RequestMalformedError(`${read.violation.field} ${read.violation.description}`);
  const { context } = read;
  if (context === undefined) return {};
  let wallMs: number | undefined;
  if (context.deadline !== undefined) {
    wallMs = Date.parse(context.deadline) - now.getTime();
    if (wallMs <= 0)
      throw new RequestMalformedError(`message.metadata["${DELEGATION_EXTENSION_URI}"].deadline has passed`);
  }
  // Never more than the expert's own budget: what the caller had left narrows it, never widens it.
  const { limits } = narrowBudget(expert.config.budget, {
    ...context.budget,
    ...(wallMs ? { wall_ms: wallMs } : {}),
  });
  let caller: PostMessageInput['caller'];
  if (context.caller !== undefined) {
    const verified = verifyCallerClaim(context.caller, trusted, audience, Math.floor(now.getTime() / 1000));
    if (verified && 'refused' in verified)
      throw new RequestMalformedError(
        `message.metadata["${DELEGATION_EXTENSION_URI}"].caller ${verified.refused}`,
      );
    caller = verified?.caller;
  }
  return {
    ...(Object.keys(limits).length > 0 ? { budget: limits } : {}),
    ...(context.traceparent !== undefined ? { traceparent: context.traceparent } : {}),
    ...(caller !== undefined ? { caller } : {}),
  };
}

/**
 * What the task used, under the extension's key, for a delegating Troupe to count in its own run; once it ended,
 * its evidence too, which the delegating Troupe's grader and parent read (docs/verified-delegation.md#remote-experts).
 */
export function usageMetadata(run: Run, evidence?: Evidence): Record<string, unknown> {
  return { [DELEGATION_EXTENSION_URI]: { usage: run.usage, ...(evidence ? { evidence } : {}) } };
}
