import type { Storage } from '../../../core/ports/storage.js';
import type { Run, RunView } from '../../../core/records/run.js';
import type { RunBudget } from '../../../core/budgets/budget.js';
import { budgetView, type BudgetView } from '../../../core/budgets/budget-view.js';
import { runCostOf, type PriceTable } from '../../../core/budgets/price-table.js';
import { cacheTokenWeights, runBudgetTokensOf } from '../../../core/budgets/cache-token-weights.js';
import type { Actor } from '../../../core/records/user.js';
import { canSeeRun, visibleRun } from '../../../core/runs/visible-run.js';
import type { RunViews } from './run-views.js';

/** Tokens and model calls of a run, and of it with everything below it; cost when prices are configured. */
export interface TreeUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  model_calls: number;
  aborted_model_calls: number;
  /** Of the input tokens: read from and written to the provider's prompt cache (docs/usage.md). */
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Of the output tokens: reasoning. */
  reasoning_tokens: number;
  tool_calls: number | null;
  cost_usd: number | null;
  /** The tokens as budgets count them: cache reads and writes at their weight (docs/budgets.md#cached-tokens). */
  budget_tokens: number;
}

/** One node of a run tree: the run and the runs it created (subagents, delegations), oldest first. */
export interface RunTreeNode {
  run: RunView;
  children: RunTreeNode[];
  /** The run's budget ledger (docs/budgets.md), live while it runs; null for a run without a budget. */
  budget: BudgetView | null;
  totals: { own: TreeUsage; subtree: TreeUsage };
}

/**
 * A run's usage as every API read shows it (live while it runs, docs/usage.md); tool calls are counted by
 * budget ledgers only.
 */
function ownUsage(run: Run, ledger: RunBudget | undefined, prices: PriceTable | undefined): TreeUsage {
  const usage = run.usage;
  const counted = usage ?? { input_tokens: 0, output_tokens: 0 };
  const input = usage?.input_tokens ?? 0;
  const output = usage?.output_tokens ?? 0;
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    model_calls: usage?.model_calls ?? 0,
    aborted_model_calls: usage?.aborted_model_calls ?? 0,
    cache_read_tokens: usage?.cache_read_tokens ?? 0,
    cache_write_tokens: usage?.cache_write_tokens ?? 0,
    reasoning_tokens: usage?.reasoning_tokens ?? 0,
    tool_calls: ledger ? ledger.used.tool_calls : null,
    cost_usd: runCostOf(prices, run.model_spec, counted) ?? null,
    // A budgeted run's ledger is the figure its admission used (each call rounded up on its own).
    budget_tokens:
      ledger?.used.tokens ??
      runBudgetTokensOf((spec) => cacheTokenWeights(prices, spec), run.model_spec, counted),
  };
}

function addTreeUsage(left: TreeUsage, right: TreeUsage): TreeUsage {
  const sum = (a: number | null, b: number | null) => (a === null && b === null ? null : (a ?? 0) + (b ?? 0));
  return {
    input_tokens: left.input_tokens + right.input_tokens,
    output_tokens: left.output_tokens + right.output_tokens,
    total_tokens: left.total_tokens + right.total_tokens,
    model_calls: left.model_calls + right.model_calls,
    aborted_model_calls: left.aborted_model_calls + right.aborted_model_calls,
    cache_read_tokens: left.cache_read_tokens + right.cache_read_tokens,
    cache_write_tokens: left.cache_write_tokens + right.cache_write_tokens,
    reasoning_tokens: left.reasoning_tokens + right.reasoning_tokens,
    tool_calls: sum(left.tool_calls, right.tool_calls),
    cost_usd: sum(left.cost_usd, right.cost_usd),
    budget_tokens: left.budget_tokens + right.budget_tokens,
  };
}

function rollUp(node: RunTreeNode): TreeUsage {
  let subtree = node.totals.own;
  for (const child of node.children) subtree = addTreeUsage(subtree, rollUp(child));
  node.totals.subtree = subtree;
  return subtree;
}

/**
 * The whole tree of the root run that `runId` belongs to, whatever node `runId` is. The tree is read in one
 * query (`listByRoot`) and nested by `created_by_run_id`; a run whose creator is not in the tree (should not
 * happen) hangs under the root rather than disappearing. Scoped like the other run routes: a run the actor
 * cannot see is `run_not_found`.
 */
export async function buildRunTree(
  storage: Storage,
  views: RunViews,
  actor: Actor,
  runId: string,
  prices?: PriceTable,
): Promise<RunTreeNode> {
  const run = visibleRun(actor, runId, await storage.runs.get(runId));
  const rootId = run.root_run_id || run.id;
  const [listed, ledgers] = await Promise.all([
    storage.runs.listByRoot(rootId),
    storage.budgets.listByRoot(rootId),
  ]);
  const members = await views.views(listed);
  const ledgerOf = new Map(ledgers.map((ledger) => [ledger.run_id, ledger]));
  const nodeOf = (member: RunView): RunTreeNode => {
    const ledger = ledgerOf.get(member.id);
    const own = ownUsage(member, ledger, prices);
    return {
      run: member,
      children: [],
      budget: ledger ? budgetView(ledger) : null,
      totals: { own, subtree: own },
    };
  };
  const root =
    members.find((member) => member.id === rootId) ??
    (await views.view((await storage.runs.get(rootId)) ?? run));
  visibleRun(actor, runId, root);

  const nodes = new Map<string, RunTreeNode>();
  const rootNode = nodeOf(root);
  nodes.set(root.id, rootNode);
  for (const member of members) {
    if (!nodes.has(member.id)) nodes.set(member.id, nodeOf(member));
  }
  // A foreign run inside a tree (never expected: children run as the same user) is left out for non-admins.
  for (const member of members) {
    if (member.id === root.id || !canSeeRun(actor, member)) continue;
    const node = nodes.get(member.id);
    if (node === undefined) continue;
    const parentId = member.created_by_run_id;
    const parent =
      (parentId !== null && parentId !== member.id ? nodes.get(parentId) : undefined) ?? rootNode;
    parent.children.push(node);
  }
  const byCreation = (left: RunTreeNode, right: RunTreeNode): number =>
    left.run.created_at.localeCompare(right.run.created_at) || left.run.id.localeCompare(right.run.id);
  for (const node of nodes.values()) node.children.sort(byCreation);
  rollUp(rootNode);
  return rootNode;
}
