import { readingThrough, writingThrough, type StorageOutage } from '../../../core/runs/storage-outage.js';
import { isoNow, type Clock } from '../../../core/clock.js';
import { exhaustedDimension, type BudgetAmounts } from '../../../core/budgets/budget.js';
import { budgetExhaustedError } from '../../../core/budgets/budget-exhaustion.js';
import { estimateTokens } from '../../../core/budgets/estimate-tokens.js';
import { budgetTokensOf, type CacheTokenWeights } from '../../../core/budgets/cache-token-weights.js';
import type { ModelCallUsage } from '../../../core/runs/run-usage.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';
import { stopVerdict } from '../../../core/runs/stop-verdict.js';
import { RunAbortError } from '../../../core/runs/run-abort.js';
import { TREE_CLOSED } from '../cancel/request-cancel.js';
import type { RunEndings } from '../run-endings.js';
import type { RunUsageMeter } from '../../usage/run-usage-meter.js';
import type { AgentMiddleware, ModelCallRequest } from '../../../core/ports/agent-middleware.js';

export interface RunGateDeps {
  storage: Storage;
  endings: RunEndings;
  clock: Clock;
  run: Run;
  /** Whether the run has a budget ledger, and whether it limits tokens (then calls are estimated). */
  budget: { tokens: boolean } | undefined;
  /** What a cached input token weighs for budgets, per model spec (docs/budgets.md#cached-tokens). */
  cacheWeights(modelSpec: string): CacheTokenWeights;
  /** The run's usage: every admitted model call is counted on it, answered or not. */
  meter: RunUsageMeter;
  /** Aborts the run's signal with this reason, so calls in flight stop too; returns the reason to throw. */
  stop(reason: RunAbortError): RunAbortError;
  /**
   * Waits a database outage out under the run (docs/scale-out.md, "Outages"): the gate's reads and writes go on
   * once it is back instead of failing the attempt, which starts it over: a turn the model answered could be
   * asked again.
   */
  outage?: StorageOutage;
}

export interface RunGate {
  /**
   * The stop check and the wall-time check again, charging nothing: before a model call's next attempt
   * after a wait (a back-off, a turn at the provider), so a cancel committed meanwhile anywhere above the
   * run, in any process, stops it before another request goes out.
   */
  recheck(): Promise<void>;
}

/**
 * The admission gate in front of every model call and tool execution (docs/budgets.md), innermost so it sees only
 * calls that would really run. It reads, in one statement, the status of the run and of every run above
 * it: once a cancel is committed anywhere up the tree, nothing new starts here, whichever process holds
 * the run and whether or not the cascade or the cancel signal has arrived. A tool whose one effect is a
 * child start (`adoptsCheckpoint`) gets that check in the start's transaction instead. Then it charges the
 * run's budget ledger with one conditional update, so concurrent spenders cannot overdraw it. A model call it
 * admits is counted on the run's usage meter, and the ledger is settled to what the call reported: its real
 * tokens, or none when it never answered (the call itself stays charged), so the ledger and the run's usage
 * agree (docs/usage.md). Tokens are charged as budgets count them: cache reads and writes at their weight
 * (docs/budgets.md#cached-tokens).
 */
export function createRunGateMiddleware(deps: RunGateDeps): AgentMiddleware & RunGate {
  const { storage, run, outage } = deps;
  /** The last answered call of this attempt, when its provider reported caching: the next call reads its prompt. */
  let cachedBefore: ModelCallUsage | undefined;

  /**
   * The admission estimate in budget tokens: the prompt's characters / 4, the part the previous call's prompt
   * covers (the cached prefix) at the read weight.
   */
  function estimateCall(request: ModelCallRequest): number {
    const raw = estimateTokens([request.system, request.messages]);
    if (cachedBefore === undefined) return raw;
    const cached = Math.min(raw, cachedBefore.input_tokens);
    const { read } = deps.cacheWeights(request.model.spec);
    return raw - cached + Math.ceil(cached * read);
  }

  async function admit(charge: BudgetAmounts, checkStop = true): Promise<void> {
    if (checkStop) await stopUnlessGo();
    if (!deps.budget) return;
    const now = isoNow(deps.clock);
    // A charge that may have landed is sent again: charged twice, the run spends less, never more.
    if (await writingThrough(outage, () => storage.budgets.admit(run.id, charge, now), 'again')) return;
    const ledger = await readingThrough(outage, () => storage.budgets.get(run.id));
    const dimension = ledger ? (exhaustedDimension(ledger, charge, now) ?? 'tokens') : 'tokens';
    const reason = 'The run exhausted its budget';
    const error = ledger
      ? budgetExhaustedError(ledger, dimension)
      : { type: 'budget_exhausted', message: reason, refusal: { code: 'budget_exhausted' as const, reason } };
    throw deps.stop(new RunAbortError('budget', error));
  }

  async function stopUnlessGo(): Promise<void> {
    const verdict = stopVerdict(await readingThrough(outage, () => storage.runs.lineageStatuses(run.id)));
    if (verdict === 'tree_cancelled') {
      await deps.endings.requestCancel(run.id, TREE_CLOSED);
      throw deps.stop(new RunAbortError('cancel'));
    }
    if (verdict === 'cancelled') throw deps.stop(new RunAbortError('cancel'));
    if (verdict === 'not_held') throw deps.stop(new RunAbortError('lease_lost'));
  }

  return {
    name: 'run-gate',
    // Nothing new is charged: a retry is the same logical call, admitted and charged once.
    recheck: () => admit({ tokens: 0, model_calls: 0, tool_calls: 0 }),
    async wrapModelCall(request, next) {
      const estimate = deps.budget?.tokens ? estimateCall(request) : 0;
      await admit({ tokens: estimate, model_calls: 1, tool_calls: 0 });
      const call = deps.meter.begin();
      let result;
      try {
        result = await next(request);
      } catch (error) {
        call.abort();
        // Best effort: a ledger left holding the estimate only errs on the side of spending less.
        if (deps.budget && estimate > 0)
          await writingThrough(outage, () => storage.budgets.settle(run.id, { tokens: -estimate })).catch(
            () => undefined,
          );
        throw error;
      }
      const answered = result.model ?? request.model.spec;
      call.settle(result.usage, answered);
      const caching = (result.usage.cache_read_tokens ?? 0) + (result.usage.cache_write_tokens ?? 0) > 0;
      cachedBefore = caching ? result.usage : undefined;
      if (deps.budget) {
        const actual = budgetTokensOf(deps.cacheWeights(answered), result.usage);
        // A settlement that may have landed is not sent again (if it did not, the ledger keeps this call's
        // estimate), and the turn the model answered is not lost with the attempt.
        await writingThrough(outage, () => storage.budgets.settle(run.id, { tokens: actual - estimate }), {
          instead: undefined,
        });
      }
      return result;
    },
    async wrapToolCall(request, next) {
      // A child start checks the stop in its own transaction, with the rows it writes (`parentRefusal`):
      // later than here, and atomic with the start.
      await admit({ tokens: 0, model_calls: 0, tool_calls: 1 }, request.tool?.adoptsCheckpoint !== true);
      return next(request);
    },
  };
}
