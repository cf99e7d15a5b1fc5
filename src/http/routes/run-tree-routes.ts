import { buildRunTree } from '../../runtime/runs/inspect/run-tree.js';
import { readRunEvidence } from '../../runtime/verification/run-evidence.js';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

export function registerRunTreeRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  registry.add({
    method: 'get',
    path: '/api/agent/runs/{id}/tree',

    response: RESPONSES.tree,
    summary: 'The whole run tree (root, subagents, delegations) that this run belongs to',
    description:
      'Returns `{tree: {run, children: [...]}}` rooted at the root run of `{id}`, children oldest first, ' +
      'nested by `created_by_run_id`. Each node has `budget` (limits, used, carved, remaining; null without a ' +
      'budget) and `totals` (`own` and `subtree` tokens, model and tool calls, and `cost_usd` when ' +
      '`TROUPE_MODEL_PRICES` prices the model). A run the caller cannot see is `run_not_found`.',
    tag: 'runs',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({
        tree: await buildRunTree(deps.storage, deps.runViews, actor, params.id, deps.config.modelPrices),
      }),
  });

  registry.add({
    method: 'get',
    path: '/api/agent/runs/{id}/evidence',
    response: RESPONSES.runEvidence,
    summary: "What a run did, from the runtime's records (evidence), and its stored verdict",
    description:
      'Returns `{evidence, verification}`: model calls, tool calls by name and how many failed, files written, ' +
      'artifacts, the runs it started and how each ended, tokens and flags, computed now from the stored ' +
      "records (never from the run's own words); `verification` is the stored verdict of a graded child run, " +
      'else null. A run the caller cannot see is `run_not_found`.',
    tag: 'runs',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => c.json(await readRunEvidence(deps.storage, actor, params.id)),
  });
}
