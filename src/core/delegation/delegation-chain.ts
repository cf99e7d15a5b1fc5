/** One run of a delegation chain, from the delegating run up to the root. */
export interface ChainLink {
  run_id: string;
  agent_id: string;
}

/**
 * Refuses A→B→A: the target may not already be working anywhere above the delegating run. Returns the
 * offending chain (root first) or undefined when the target is not in it.
 */
export function findCycle(ancestry: readonly ChainLink[], targetAgentId: string): ChainLink[] | undefined {
  if (!ancestry.some((link) => link.agent_id === targetAgentId)) return undefined;
  return [...ancestry].reverse();
}
