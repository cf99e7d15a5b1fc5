import { remainingOf } from '../../core/budgets/budget.js';
import { CLAIM_LIFETIME_SECONDS } from '../../core/remote-experts/caller-claim.js';
import type { DelegationContext } from '../../core/remote-experts/delegation-context.js';
import type { RemoteExpertDeps, RemoteExpertRun } from './remote-expert-run.js';

/**
 * What travels with the task under the delegation extension (README "Remote A2A experts"): the run's
 * remaining budget, the earlier of its budget's deadline and this wait's, the trace of the call that
 * delegated, and this server's signed claim of the user (when it has a signing key).
 */
export async function delegationContext(
  deps: RemoteExpertDeps,
  work: RemoteExpertRun,
  deadlineAt: number,
): Promise<DelegationContext> {
  const { run, agent } = work;
  const [ledger, user] = await Promise.all([
    deps.storage.budgets.get(run.id),
    deps.storage.users.get(run.user_id),
  ]);
  const budgetDeadline = ledger?.deadline_at ? Date.parse(ledger.deadline_at) : Infinity;
  const now = Math.floor(Date.now() / 1000);
  const cardUrl = agent.config.a2a?.card_url;
  const caller =
    cardUrl === undefined
      ? undefined
      : deps.connector.callerClaim?.({
          sub: run.user_id,
          name: user?.name ?? run.user_id,
          aud: new URL(cardUrl).origin,
          iat: now,
          exp: now + CLAIM_LIFETIME_SECONDS,
          jti: run.id,
        });
  return {
    ...(ledger ? { budget: remainingOf(ledger) } : {}),
    deadline: new Date(Math.min(deadlineAt, budgetDeadline)).toISOString(),
    ...(typeof run.input.traceparent === 'string' ? { traceparent: run.input.traceparent } : {}),
    ...(caller !== undefined ? { caller } : {}),
  };
}
