import type { Run } from '../records/run.js';
import { childHops, type ChildRunKind } from './lineage.js';

/** The server limits a child start is checked against (the creating agent's own may only narrow them). */
export interface ChildRunLimits {
  /** Most subagent hops since the nearest main-agent run. */
  subagentMaxDepth: number;
  /** Most delegation hops in a chain: A → B → C with the default 2. */
  delegationMaxDepth: number;
  maxActiveChildrenPerRun: number;
  maxActiveChildrenPerUser: number;
}

interface LimitTexts {
  depthExceeded: (max: number) => string;
  tooManyChildren: (max: number) => string;
  tooManyForUser: (max: number) => string;
}

/**
 * What a model (or a `POST /api/delegate` client) is told when a limit refuses a child. The wording differs by
 * kind because the advice does (await a subagent vs wait for an expert); it never changes.
 */
export const CHILD_RUN_LIMIT_TEXTS = {
  subagent: {
    depthExceeded: (max: number) => `Subagent depth limit reached (max ${max}); do this work yourself`,
    tooManyChildren: (max: number) =>
      `This run already has ${max} active subagent runs (the limit); await or cancel one before starting another`,
    tooManyForUser: (max: number) =>
      `You already have ${max} active subagent runs (the limit); await or cancel one before starting another`,
  },
  delegation: {
    depthExceeded: (max: number) =>
      `Delegation depth limit reached (max ${max}); do this work yourself or answer with what you have`,
    tooManyChildren: (max: number) =>
      `This run already has ${max} active child runs (the limit); wait for one to finish before delegating`,
    tooManyForUser: (max: number) =>
      `You already have ${max} active child runs (the limit); wait for one to finish before delegating`,
  },
  // A grader is started by the runtime, never by a model: its texts reach the verdict's reasons.
  grader: {
    depthExceeded: (max: number) => `Depth limit reached (max ${max})`,
    tooManyChildren: (max: number) => `This run already has ${max} active child runs (the limit)`,
    tooManyForUser: (max: number) => `You already have ${max} active child runs (the limit)`,
  },
} as const satisfies Record<ChildRunKind, LimitTexts>;

/** The refusal when a child of `kind` would be past its kind's depth limit; each kind counts its own hops. */
export function depthRefusal(
  kind: ChildRunKind,
  parent: Pick<Run, 'run_type' | 'depth'> | undefined,
  limits: ChildRunLimits,
): string | undefined {
  // A grader is one per graded child and never starts runs: it adds no hop an agent could chain.
  if (kind === 'grader') return undefined;
  const hops = childHops(parent, kind);
  const [used, max] =
    kind === 'subagent'
      ? [hops.subagent, limits.subagentMaxDepth]
      : [hops.delegation, limits.delegationMaxDepth];
  return used > max ? CHILD_RUN_LIMIT_TEXTS[kind].depthExceeded(max) : undefined;
}

/** Active children right now: of the creating run, and of its user across every run. */
export interface ActiveChildren {
  ofRun: number;
  ofUser: number;
}

/** The refusal when one more active child would pass the per-run or per-user limit (the per-run one first). */
export function quotaRefusal(
  kind: ChildRunKind,
  active: ActiveChildren,
  limits: ChildRunLimits,
): string | undefined {
  const texts = CHILD_RUN_LIMIT_TEXTS[kind];
  if (active.ofRun >= limits.maxActiveChildrenPerRun)
    return texts.tooManyChildren(limits.maxActiveChildrenPerRun);
  if (active.ofUser >= limits.maxActiveChildrenPerUser)
    return texts.tooManyForUser(limits.maxActiveChildrenPerUser);
  return undefined;
}
