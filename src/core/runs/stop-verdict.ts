import type { RunStatus } from '../records/run.js';

/**
 * Whether a run may start its next model or tool call (docs/budgets.md#the-stop-guarantee), from its own status and
 * those of the runs above it, own first. Once a cancel is committed anywhere above, the subtree stops even
 * before the cascade reaches it.
 */
export type StopVerdict = 'go' | 'cancelled' | 'tree_cancelled' | 'not_held';

export function stopVerdict(lineage: readonly RunStatus[]): StopVerdict {
  const [own, ...above] = lineage;
  if (own === 'cancel_requested' || own === 'cancelled') return 'cancelled';
  if (own !== 'running') return 'not_held';
  return above.some((status) => status === 'cancel_requested' || status === 'cancelled')
    ? 'tree_cancelled'
    : 'go';
}
