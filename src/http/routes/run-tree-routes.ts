import { buildRunTree } from '../../runtime/runs/inspect/run-tree.js';
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
}
